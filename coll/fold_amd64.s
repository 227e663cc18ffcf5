//go:build amd64 && !purego

#include "textflag.h"

// Vector folds for the predefined operators (fold_amd64.go): each sets
// inout[i] = in[i] ∘ inout[i] over n bytes, n a multiple of 32, with AVX2
// and unaligned loads and stores; 128 bytes a round, then 32. The
// operations here are exact and commutative per element (integer and
// bitwise ones, IEEE add and multiply), so the result is the same bits as
// the scalar loop's.
//
// func NAME(in, inout *byte, n int)
#define FOLD(NAME, OP) \
TEXT NAME(SB), NOSPLIT, $0-24; \
	MOVQ in+0(FP), SI; \
	MOVQ inout+8(FP), DI; \
	MOVQ n+16(FP), CX; \
	CMPQ CX, $128; \
	JB   tail; \
loop: \
	VMOVDQU 0(SI), Y0; \
	VMOVDQU 32(SI), Y1; \
	VMOVDQU 64(SI), Y2; \
	VMOVDQU 96(SI), Y3; \
	OP 0(DI), Y0, Y0; \
	OP 32(DI), Y1, Y1; \
	OP 64(DI), Y2, Y2; \
	OP 96(DI), Y3, Y3; \
	VMOVDQU Y0, 0(DI); \
	VMOVDQU Y1, 32(DI); \
	VMOVDQU Y2, 64(DI); \
	VMOVDQU Y3, 96(DI); \
	ADDQ $128, SI; \
	ADDQ $128, DI; \
	SUBQ $128, CX; \
	CMPQ CX, $128; \
	JAE  loop; \
tail: \
	CMPQ CX, $32; \
	JB   done; \
	VMOVDQU 0(SI), Y0; \
	OP 0(DI), Y0, Y0; \
	VMOVDQU Y0, 0(DI); \
	ADDQ $32, SI; \
	ADDQ $32, DI; \
	SUBQ $32, CX; \
	JMP  tail; \
done: \
	VZEROUPPER; \
	RET

FOLD(·addF32AVX2, VADDPS)
FOLD(·addF64AVX2, VADDPD)
FOLD(·mulF32AVX2, VMULPS)
FOLD(·mulF64AVX2, VMULPD)
FOLD(·addI8AVX2, VPADDB)
FOLD(·addI16AVX2, VPADDW)
FOLD(·addI32AVX2, VPADDD)
FOLD(·addI64AVX2, VPADDQ)
FOLD(·mulI16AVX2, VPMULLW)
FOLD(·mulI32AVX2, VPMULLD)
FOLD(·andAVX2, VPAND)
FOLD(·orAVX2, VPOR)
FOLD(·xorAVX2, VPXOR)
FOLD(·minI8AVX2, VPMINSB)
FOLD(·minI16AVX2, VPMINSW)
FOLD(·minI32AVX2, VPMINSD)
FOLD(·minU8AVX2, VPMINUB)
FOLD(·minU16AVX2, VPMINUW)
FOLD(·minU32AVX2, VPMINUD)
FOLD(·maxI8AVX2, VPMAXSB)
FOLD(·maxI16AVX2, VPMAXSW)
FOLD(·maxI32AVX2, VPMAXSD)
FOLD(·maxU8AVX2, VPMAXUB)
FOLD(·maxU16AVX2, VPMAXUW)
FOLD(·maxU32AVX2, VPMAXUD)
