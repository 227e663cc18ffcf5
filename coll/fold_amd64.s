//go:build amd64 && !purego

#include "textflag.h"

// Vector folds for the predefined operators (fold_amd64.go): each sets
// out[i] = a[i] ∘ b[i] over n bytes, n a multiple of 32, with AVX2 and
// unaligned loads and stores; 128 bytes a round, then 32. A round loads all
// its a and b before it stores out, so out may be a or b itself (the same
// address; the two-operand fold inout = in ∘ inout is out = inout), but
// must not overlap them otherwise. The operations here are exact and
// commutative per element (integer and bitwise ones, IEEE add and
// multiply), so the result is the same bits as the scalar loop's.
//
// func NAME(a, b, out *byte, n int)
#define FOLD3(NAME, OP) \
TEXT NAME(SB), NOSPLIT, $0-32; \
	MOVQ a+0(FP), SI; \
	MOVQ b+8(FP), DX; \
	MOVQ out+16(FP), DI; \
	MOVQ n+24(FP), CX; \
	CMPQ CX, $128; \
	JB   tail; \
loop: \
	VMOVDQU 0(SI), Y0; \
	VMOVDQU 32(SI), Y1; \
	VMOVDQU 64(SI), Y2; \
	VMOVDQU 96(SI), Y3; \
	OP 0(DX), Y0, Y0; \
	OP 32(DX), Y1, Y1; \
	OP 64(DX), Y2, Y2; \
	OP 96(DX), Y3, Y3; \
	VMOVDQU Y0, 0(DI); \
	VMOVDQU Y1, 32(DI); \
	VMOVDQU Y2, 64(DI); \
	VMOVDQU Y3, 96(DI); \
	ADDQ $128, SI; \
	ADDQ $128, DX; \
	ADDQ $128, DI; \
	SUBQ $128, CX; \
	CMPQ CX, $128; \
	JAE  loop; \
tail: \
	CMPQ CX, $32; \
	JB   done; \
	VMOVDQU 0(SI), Y0; \
	OP 0(DX), Y0, Y0; \
	VMOVDQU Y0, 0(DI); \
	ADDQ $32, SI; \
	ADDQ $32, DX; \
	ADDQ $32, DI; \
	SUBQ $32, CX; \
	JMP  tail; \
done: \
	VZEROUPPER; \
	RET

FOLD3(·addF32AVX2x3, VADDPS)
FOLD3(·addF64AVX2x3, VADDPD)
FOLD3(·mulF32AVX2x3, VMULPS)
FOLD3(·mulF64AVX2x3, VMULPD)
FOLD3(·addI8AVX2x3, VPADDB)
FOLD3(·addI16AVX2x3, VPADDW)
FOLD3(·addI32AVX2x3, VPADDD)
FOLD3(·addI64AVX2x3, VPADDQ)
FOLD3(·mulI16AVX2x3, VPMULLW)
FOLD3(·mulI32AVX2x3, VPMULLD)
FOLD3(·andAVX2x3, VPAND)
FOLD3(·orAVX2x3, VPOR)
FOLD3(·xorAVX2x3, VPXOR)
FOLD3(·minI8AVX2x3, VPMINSB)
FOLD3(·minI16AVX2x3, VPMINSW)
FOLD3(·minI32AVX2x3, VPMINSD)
FOLD3(·minU8AVX2x3, VPMINUB)
FOLD3(·minU16AVX2x3, VPMINUW)
FOLD3(·minU32AVX2x3, VPMINUD)
FOLD3(·maxI8AVX2x3, VPMAXSB)
FOLD3(·maxI16AVX2x3, VPMAXSW)
FOLD3(·maxI32AVX2x3, VPMAXSD)
FOLD3(·maxU8AVX2x3, VPMAXUB)
FOLD3(·maxU16AVX2x3, VPMAXUW)
FOLD3(·maxU32AVX2x3, VPMAXUD)
