; sendledger's per-user Windows installer (NSIS 3, no plugin beyond NSIS's own).
; Built by scripts/package-windows.sh, which passes:
;   /DVERSION=x.y.z   the version
;   /DSTAGE=dir       the staged files: sendledger.exe, optional sendledger-tray.exe and
;                     sendledger-app.exe, extension\, README.txt
;   /DOUTFILE=path    the installer to write
;   /DWITH_TRAY       when sendledger-tray.exe (and the window) are staged
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
${UnStrRep}

!define APP "sendledger"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"

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
!ifdef WITH_TRAY
  File "${STAGE}\sendledger-tray.exe"
  File "${STAGE}\sendledger-app.exe"
!endif
  SetOutPath "$INSTDIR\extension"
  File /r "${STAGE}\extension\*.*"
  SetOutPath "$INSTDIR"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  ; The Start menu: the tray when it is shipped, else an owner in a console window.
  CreateDirectory "$SMPROGRAMS\${APP}"
!ifdef WITH_TRAY
  CreateShortcut "$SMPROGRAMS\${APP}\${APP}.lnk" "$INSTDIR\sendledger-tray.exe"
!else
  CreateShortcut "$SMPROGRAMS\${APP}\${APP} (owner).lnk" "$INSTDIR\sendledger.exe" "serve"
!endif
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

Section "Uninstall"
  Call un.StopRunning
  ; Autostart: the tray's Run entry (tauri-plugin-autostart names it after the app).
  DeleteRegValue HKCU "${RUN_KEY}" "${APP}"
  Call un.RemoveFromPath
  Delete "$INSTDIR\sendledger.exe"
  Delete "$INSTDIR\sendledger-tray.exe"
  Delete "$INSTDIR\sendledger-app.exe"
  Delete "$INSTDIR\README.txt"
  RMDir /r "$INSTDIR\extension"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  RMDir /r "$SMPROGRAMS\${APP}"
  DeleteRegKey HKCU "${UNINST_KEY}"
  ; The profile (the ledger, %LOCALAPPDATA%\sendledger\data) is the user's record: kept.
SectionEnd
