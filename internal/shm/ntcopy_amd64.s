#include "textflag.h"

// func ntCopy64(dst, src unsafe.Pointer, n int)
// Copies n bytes (n > 0, a multiple of 64) from src to dst (16-byte aligned)
// with non-temporal stores (MOVNTDQ), then SFENCE: the stores are visible to
// every CPU before any store that follows.
TEXT ·ntCopy64(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
loop:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	JNZ loop
	SFENCE
	RET
