#include "textflag.h"

// func framePointer() uintptr
// A frameless function: BP still holds its caller's frame pointer.
TEXT ·framePointer(SB),NOSPLIT,$0-8
	MOVQ BP, ret+0(FP)
	RET
