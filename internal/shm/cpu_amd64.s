#include "textflag.h"

// func rdtscpAux() uint32
TEXT ·rdtscpAux(SB), NOSPLIT|NOFRAME, $0-4
	RDTSCP
	MOVL CX, ret+0(FP)
	RET

// func cpuid(leaf uint32) (eax, edx uint32)
TEXT ·cpuid(SB), NOSPLIT|NOFRAME, $0-16
	MOVL leaf+0(FP), AX
	XORL CX, CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL DX, edx+12(FP)
	RET
