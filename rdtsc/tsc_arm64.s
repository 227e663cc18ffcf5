// Copyright the gompi authors. The generic timer's virtual counter on arm64.

#include "textflag.h"

// func Start() uint64
//
// Reads CNTVCT_EL0 at the start of a timed interval.
// ISB before MRS: reads of the generic timer may be performed out of order
// with respect to surrounding instructions (Arm ARM D12.1.2, "reads of
// CNTVCT_EL0 can occur speculatively and out of order"); the instruction
// synchronization barrier makes the read happen after everything before it
// has completed, the same idiom as Linux's arch_timer_read_cntvct_el0.
TEXT ·Start(SB), NOSPLIT|NOFRAME, $0-8
	ISB	$15
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func Read() uint64
//
// Reads CNTVCT_EL0 with no barrier: the read may happen out of order with
// the instructions around it (see Start), for stamping events cheaply.
TEXT ·Read(SB), NOSPLIT|NOFRAME, $0-8
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func End() uint64
//
// Reads CNTVCT_EL0 at the end of a timed interval.
// ISB before MRS: as in Start, the timed code must be complete first.
// ISB after MRS: keeps the instructions after the interval from executing
// before the counter is read, the arm64 counterpart of RDTSCP; LFENCE.
TEXT ·End(SB), NOSPLIT|NOFRAME, $0-8
	ISB	$15
	MRS	CNTVCT_EL0, R0
	ISB	$15
	MOVD	R0, ret+0(FP)
	RET

// func counterFreq() uint64
//
// CNTFRQ_EL0 holds the frequency of the system counter in Hz, programmed by
// firmware; it needs no barrier (it does not change while we run).
TEXT ·counterFreq(SB), NOSPLIT|NOFRAME, $0-8
	MRS	CNTFRQ_EL0, R0
	MOVD	R0, ret+0(FP)
	RET
