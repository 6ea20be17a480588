#!/usr/bin/env bash
# Signs one Windows executable in place with osslsigncode (Authenticode, SHA-256), with
# the certificate and key named by SENDLEDGER_SIGN_CERT and SENDLEDGER_SIGN_KEY (PEM).
# Used by scripts/package-windows.sh for the binaries and the installer, and by NSIS
# (!uninstfinalize) for the uninstaller before it is packed.
set -euo pipefail
file="${1:?usage: sign.sh FILE.exe}"
: "${SENDLEDGER_SIGN_CERT:?set SENDLEDGER_SIGN_CERT to a PEM certificate}"
: "${SENDLEDGER_SIGN_KEY:?set SENDLEDGER_SIGN_KEY to its PEM private key}"
osslsigncode sign -certs "$SENDLEDGER_SIGN_CERT" -key "$SENDLEDGER_SIGN_KEY" -h sha256 \
  -n sendledger -in "$file" -out "$file.signed"
mv -f "$file.signed" "$file"
