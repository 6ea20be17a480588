/* A test fixture, not part of the product: Wine 8.0 has no bcryptprimitives.dll, and
 * Rust's standard library (1.78 and later) imports ProcessPrng from it, so every Rust
 * .exe exits at start under Wine 8 ("import_dll Library bcryptprimitives.dll ... not
 * found"). This DLL exports ProcessPrng over RtlGenRandom (advapi32's SystemFunction036),
 * which Wine has. Built by tests/windows/wine-prefix.sh into the tests' own Wine prefix.
 * Windows 10 and 11 ship the real DLL: nothing here is installed or shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* Fills `len` bytes at `data` with random bytes; TRUE on success (never fails on
 * Windows; here it fails only when RtlGenRandom does). */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
