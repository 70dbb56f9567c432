/*
 * bcryptprimitives.dll for wine 8 (Debian 12), built by scripts/test-windows.
 *
 * Rust's standard library (1.78 and later) gets random bytes on Windows from
 * ProcessPrng in bcryptprimitives.dll, which wine added only in version 9: without
 * it no Rust program starts under Debian 12's wine. This stand-in exports the one
 * function, filled by advapi32's RtlGenRandom (SystemFunction036), which wine 8 has.
 * It is copied into the throwaway wine prefix of the test run only.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
