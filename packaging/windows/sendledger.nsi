; sendledger's per-user Windows installer (NSIS 3, no plugin beyond NSIS's own).
; Built by scripts/package-windows.sh, which passes:
;   /DVERSION=x.y.z   the version
;   /DSTAGE=dir       the staged files: sendledger.exe, sendledger-tray.exe,
;                     sendledger-app.exe and the WebView2Loader.dll it imports,
;                     extension\, README.txt
;   /DOUTFILE=path    the installer to write
;   /DSIGN_CMD=...    optional: a command signing %1 (the uninstaller, before it is packed)
; No administrator rights: everything goes under the user's profile and HKCU.
; Silent install: sendledger-setup.exe /S [/D=C:\some\dir]  (/D= last, unquoted).

Unicode true
Target amd64-unicode
RequestExecutionLevel user
SetCompressor /SOLID lzma

!include "StrFunc.nsh"
!include "LogicLib.nsh"
!include "WinMessages.nsh"
${StrStr}
${UnStrStr}
${UnStrRep}

!define APP "sendledger"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
; Where Task Manager's Startup tab keeps an entry's on/off (tauri-plugin-autostart writes it).
!define APPROVED_KEY "Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run"

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
ShowInstDetails show
ShowUninstDetails show

!ifdef SIGN_CMD
!uninstfinalize '${SIGN_CMD} "%1"'
!endif

Page directory
Page instfiles
UninstPage uninstConfirm
UninstPage instfiles

Section "sendledger"
  SetOutPath "$INSTDIR"
  Call StopRunning
  File "${STAGE}\sendledger.exe"
  File "${STAGE}\README.txt"
  File "${STAGE}\sendledger-tray.exe"
  File "${STAGE}\sendledger-app.exe"
  File "${STAGE}\WebView2Loader.dll"
  SetOutPath "$INSTDIR\extension"
  File /r "${STAGE}\extension\*.*"
  SetOutPath "$INSTDIR"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  ; The Start menu: the queue window (it starts the tray, the profile's owner, first, as
  ; the Linux desktop entry does).
  CreateDirectory "$SMPROGRAMS\${APP}"
  CreateShortcut "$SMPROGRAMS\${APP}\${APP}.lnk" "$INSTDIR\sendledger-app.exe"
  CreateShortcut "$SMPROGRAMS\${APP}\Browser extension folder.lnk" "$INSTDIR\extension"
  CreateShortcut "$SMPROGRAMS\${APP}\Uninstall ${APP}.lnk" "$INSTDIR\uninstall.exe"

  Call AddToPath

  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "sendledger"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
SectionEnd

; Ends a running tray, window or owner of this installation before files are replaced or
; removed: first asked to close (taskkill without /F), then ended (/F, TerminateProcess:
; what a crash does — custody holds, and sends in flight read uncertain at the next start).
!macro STOP_RUNNING
  nsExec::Exec 'taskkill /IM sendledger-app.exe'
  Pop $0
  nsExec::Exec 'taskkill /IM sendledger-tray.exe'
  Pop $0
  Sleep 1000
  nsExec::Exec 'taskkill /F /IM sendledger-app.exe'
  Pop $0
  nsExec::Exec 'taskkill /F /IM sendledger-tray.exe'
  Pop $0
  nsExec::Exec 'taskkill /F /IM sendledger.exe'
  Pop $0
!macroend

Function StopRunning
  !insertmacro STOP_RUNNING
FunctionEnd

Function un.StopRunning
  !insertmacro STOP_RUNNING
FunctionEnd

; Appends $INSTDIR to the user's Path (HKCU\Environment) unless it is there already, and
; tells running programs (Explorer) the environment changed.
Function AddToPath
  ReadRegStr $0 HKCU "Environment" "Path"
  ${StrStr} $1 ";$0;" ";$INSTDIR;"
  ${If} $1 == ""
    ${If} $0 == ""
      WriteRegExpandStr HKCU "Environment" "Path" "$INSTDIR"
    ${Else}
      WriteRegExpandStr HKCU "Environment" "Path" "$0;$INSTDIR"
    ${EndIf}
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
  ${EndIf}
FunctionEnd

Function un.RemoveFromPath
  ReadRegStr $0 HKCU "Environment" "Path"
  ${UnStrRep} $1 ";$0;" ";$INSTDIR;" ";"
  ; drop the guards added above
  StrCpy $1 $1 "" 1
  StrCpy $1 $1 -1
  ${If} $1 == ""
    DeleteRegValue HKCU "Environment" "Path"
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
  ${ElseIf} $1 != $0
    WriteRegExpandStr HKCU "Environment" "Path" "$1"
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
  ${EndIf}
FunctionEnd

; Removes every log-in entry of this installation, one per profile: the Run values named
; `sendledger` (the default profile) or `sendledger-<hex>` (another; src-tauri's
; autostart_name) whose command is in $INSTDIR, and their Task Manager switch. Another
; program's entry, or another installation's, stays.
Function un.RemoveAutostart
  StrCpy $0 0
  ${Do}
    EnumRegValue $1 HKCU "${RUN_KEY}" $0
    ${If} $1 == ""
      ${Break}
    ${EndIf}
    ReadRegStr $2 HKCU "${RUN_KEY}" $1
    StrCpy $3 $1 11
    ${UnStrStr} $4 $2 "$INSTDIR\"
    StrCpy $5 0
    ${If} $1 == "${APP}"
    ${OrIf} $3 == "${APP}-"
      StrCpy $5 1
    ${EndIf}
    ${If} $5 == 1
    ${AndIf} $4 != ""
      DeleteRegValue HKCU "${RUN_KEY}" $1
      DeleteRegValue HKCU "${APPROVED_KEY}" $1
      ; the values after it moved down one: the same index again
    ${Else}
      IntOp $0 $0 + 1
    ${EndIf}
  ${Loop}
FunctionEnd

Section "Uninstall"
  Call un.StopRunning
  Call un.RemoveAutostart
  Call un.RemoveFromPath
  Delete "$INSTDIR\sendledger.exe"
  Delete "$INSTDIR\sendledger-tray.exe"
  Delete "$INSTDIR\sendledger-app.exe"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\README.txt"
  RMDir /r "$INSTDIR\extension"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  RMDir /r "$SMPROGRAMS\${APP}"
  DeleteRegKey HKCU "${UNINST_KEY}"
  ; The profile (the ledger, %LOCALAPPDATA%\sendledger\data) is the user's record: kept.
SectionEnd
