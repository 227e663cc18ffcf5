//go:build !race

#include "textflag.h"

// func storePlain32(addr *uint32, v uint32)
TEXT ·storePlain32(SB), NOSPLIT, $0-12
	MOVQ	addr+0(FP), AX
	MOVL	v+8(FP), BX
	MOVL	BX, 0(AX)
	RET
