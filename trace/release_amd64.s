//go:build amd64 && !race

#include "textflag.h"

// func storeRelease(p *uint32, v uint32)
TEXT ·storeRelease(SB), NOSPLIT|NOFRAME, $0-12
	MOVQ p+0(FP), AX
	MOVL v+8(FP), BX
	MOVL BX, 0(AX)
	RET
