// SHA-256 block functions on the x86 SHA extensions; see CPairedSHA256.h. The rounds follow FIPS 180-4
// as Intel's SHA extensions compute them: state in ABEF/CDGH order, `sha256rnds2` two rounds at a time,
// `sha256msg1`/`sha256msg2` for the message schedule, kept in a rolling window of four registers per
// stream (two streams and their state fit the sixteen XMM registers). Tests compare every result with
// swift-crypto's SHA-256 (`PairedSHA256Tests`).
#include "CPairedSHA256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

#define TARGET __attribute__((target("sha,ssse3,sse4.1")))

static const uint32_t roundConstants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

int CPairedSHA256_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return ssse3 && sse41 && ((ebx >> 29) & 1);
}

/// Loads a…h into the ABEF and CDGH registers the round instruction works on.
TARGET static inline void loadState(const uint32_t *state, __m128i *abef, __m128i *cdgh) {
    __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    *abef = _mm_alignr_epi8(dcba, efgh, 8);
    *cdgh = _mm_blend_epi16(efgh, dcba, 0xF0);
}

/// Stores ABEF and CDGH back as a…h.
TARGET static inline void storeState(uint32_t *state, __m128i abef, __m128i cdgh) {
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/// The byte order swap of each 32-bit word as the message is loaded (SHA-256 words are big-endian).
#define SWAP_MASK _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL)
#define LOAD(data, index) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((data) + 16 * (index))), SWAP_MASK)

/// Four rounds (`group` 0…15) with message words `w`.
#define ROUNDS(group, w, abef, cdgh) do { \
        __m128i k_ = _mm_add_epi32(w, _mm_load_si128((const __m128i *)&roundConstants[4 * (group)])); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k_); \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k_, 0x0E)); \
    } while (0)

/// The next four message words into `w0` from the previous sixteen (`w0` oldest … `w3` newest).
#define SCHEDULE(w0, w1, w2, w3) do { \
        __m128i t_ = _mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), _mm_alignr_epi8(w3, w2, 4)); \
        w0 = _mm_sha256msg2_epu32(t_, w3); \
    } while (0)

/// Rounds 16…63 for one stream, four groups per step of the rolling window.
#define WINDOW(group, w0, w1, w2, w3, abef, cdgh) \
    SCHEDULE(w0, w1, w2, w3); ROUNDS(group, w0, abef, cdgh); \
    SCHEDULE(w1, w2, w3, w0); ROUNDS(group + 1, w1, abef, cdgh); \
    SCHEDULE(w2, w3, w0, w1); ROUNDS(group + 2, w2, abef, cdgh); \
    SCHEDULE(w3, w0, w1, w2); ROUNDS(group + 3, w3, abef, cdgh);

TARGET void CPairedSHA256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    __m128i abef, cdgh;
    loadState(state, &abef, &cdgh);
    for (; blocks > 0; blocks--, data += 64) {
        __m128i savedABEF = abef, savedCDGH = cdgh;
        __m128i w0 = LOAD(data, 0), w1 = LOAD(data, 1), w2 = LOAD(data, 2), w3 = LOAD(data, 3);
        ROUNDS(0, w0, abef, cdgh);
        ROUNDS(1, w1, abef, cdgh);
        ROUNDS(2, w2, abef, cdgh);
        ROUNDS(3, w3, abef, cdgh);
        WINDOW(4, w0, w1, w2, w3, abef, cdgh)
        WINDOW(8, w0, w1, w2, w3, abef, cdgh)
        WINDOW(12, w0, w1, w2, w3, abef, cdgh)
        abef = _mm_add_epi32(abef, savedABEF);
        cdgh = _mm_add_epi32(cdgh, savedCDGH);
    }
    storeState(state, abef, cdgh);
}

/// One step of the rolling window for both streams, their instructions alternating.
#define WINDOW2(group, a0, a1, a2, a3, b0, b1, b2, b3) \
    SCHEDULE(a0, a1, a2, a3); SCHEDULE(b0, b1, b2, b3); \
    ROUNDS(group, a0, abefA, cdghA); ROUNDS(group, b0, abefB, cdghB); \
    SCHEDULE(a1, a2, a3, a0); SCHEDULE(b1, b2, b3, b0); \
    ROUNDS(group + 1, a1, abefA, cdghA); ROUNDS(group + 1, b1, abefB, cdghB); \
    SCHEDULE(a2, a3, a0, a1); SCHEDULE(b2, b3, b0, b1); \
    ROUNDS(group + 2, a2, abefA, cdghA); ROUNDS(group + 2, b2, abefB, cdghB); \
    SCHEDULE(a3, a0, a1, a2); SCHEDULE(b3, b0, b1, b2); \
    ROUNDS(group + 3, a3, abefA, cdghA); ROUNDS(group + 3, b3, abefB, cdghB);

TARGET void CPairedSHA256_blocks2(
    uint32_t firstState[8], const uint8_t *first, uint32_t secondState[8], const uint8_t *second, size_t blocks) {
    __m128i abefA, cdghA, abefB, cdghB;
    loadState(firstState, &abefA, &cdghA);
    loadState(secondState, &abefB, &cdghB);
    for (; blocks > 0; blocks--, first += 64, second += 64) {
        __m128i savedA0 = abefA, savedA1 = cdghA, savedB0 = abefB, savedB1 = cdghB;
        __m128i a0 = LOAD(first, 0), a1 = LOAD(first, 1), a2 = LOAD(first, 2), a3 = LOAD(first, 3);
        __m128i b0 = LOAD(second, 0), b1 = LOAD(second, 1), b2 = LOAD(second, 2), b3 = LOAD(second, 3);
        ROUNDS(0, a0, abefA, cdghA); ROUNDS(0, b0, abefB, cdghB);
        ROUNDS(1, a1, abefA, cdghA); ROUNDS(1, b1, abefB, cdghB);
        ROUNDS(2, a2, abefA, cdghA); ROUNDS(2, b2, abefB, cdghB);
        ROUNDS(3, a3, abefA, cdghA); ROUNDS(3, b3, abefB, cdghB);
        WINDOW2(4, a0, a1, a2, a3, b0, b1, b2, b3)
        WINDOW2(8, a0, a1, a2, a3, b0, b1, b2, b3)
        WINDOW2(12, a0, a1, a2, a3, b0, b1, b2, b3)
        abefA = _mm_add_epi32(abefA, savedA0);
        cdghA = _mm_add_epi32(cdghA, savedA1);
        abefB = _mm_add_epi32(abefB, savedB0);
        cdghB = _mm_add_epi32(cdghB, savedB1);
    }
    storeState(firstState, abefA, cdghA);
    storeState(secondState, abefB, cdghB);
}

#else  // no SHA extensions to use: callers take their portable path

int CPairedSHA256_available(void) { return 0; }
void CPairedSHA256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state; (void)data; (void)blocks;
    __builtin_trap();
}
void CPairedSHA256_blocks2(
    uint32_t firstState[8], const uint8_t *first, uint32_t secondState[8], const uint8_t *second, size_t blocks) {
    (void)firstState; (void)first; (void)secondState; (void)second; (void)blocks;
    __builtin_trap();
}
#endif
