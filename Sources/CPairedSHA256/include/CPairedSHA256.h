#ifndef CPAIREDSHA256_H
#define CPAIREDSHA256_H
// The SHA-256 block function with the x86 SHA extensions (SHA-NI), one stream or two interleaved.
//
// Why two: SHA-NI's round instruction is latency-bound, so one stream leaves the core's SHA unit mostly
// idle; two independent streams whose instructions alternate run about 1.5 times as fast as the two one
// after the other. A chunk-indexed pack hashes every byte twice (its chunk and its file), so it hashes
// both streams in one pass. Only the block function is here; padding and lengths are the caller's.
// Prefixed with the module name, as CLinuxSystem is.
#include <stddef.h>
#include <stdint.h>

/// 1 when the CPU has the SHA extensions, SSSE3 and SSE4.1 (what the functions below use), else 0;
/// the functions below must not be called then.
int CPairedSHA256_available(void);

/// Compresses `blocks` 64-byte blocks of `data` into `state` (the eight words a…h, native order).
void CPairedSHA256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// `CPairedSHA256_blocks` for two streams at once: `blocks` blocks of `first` into `firstState` and as
/// many of `second` into `secondState`, their rounds interleaved. The streams may overlap in memory.
void CPairedSHA256_blocks2(
    uint32_t firstState[8], const uint8_t *first, uint32_t secondState[8], const uint8_t *second, size_t blocks);
#endif
