//go:build amd64 && !race

#include "textflag.h"

// func StoreRelease32(p *uint32, v uint32)
TEXT ·StoreRelease32(SB), NOSPLIT|NOFRAME, $0-12
	MOVQ p+0(FP), AX
	MOVL v+8(FP), BX
	MOVL BX, 0(AX)
	RET

// func StoreRelease64(p *uint64, v uint64)
TEXT ·StoreRelease64(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, 0(AX)
	RET
