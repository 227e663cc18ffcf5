// Copyright the gompi authors. Time-stamp counter and CPUID on amd64.

#include "textflag.h"

// func Start() uint64
//
// Reads the TSC at the start of a timed interval.
// LFENCE before RDTSC: RDTSC is not a serializing instruction, so the CPU may
// execute it before earlier instructions have finished (and, in particular,
// before earlier loads have completed). Intel SDM vol. 2B "RDTSC" and AMD APM
// vol. 3 both say that LFENCE waits for all prior instructions to complete
// locally (on AMD with the "LFENCE is dispatch serializing" MSR bit that Linux
// and all current hypervisors set), so the counter is read only after what came
// before the interval is done. Nothing needs to stop later instructions from
// starting early: the timed code starting a little early makes the interval
// look longer by at most the pipeline depth, never shorter.
TEXT ·Start(SB), NOSPLIT|NOFRAME, $0-8
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func Read() uint64
//
// Reads the TSC with no fence: the processor may execute the read a few
// dozen cycles before or after the instructions around it. Half the cost of
// Start here, for code that stamps many events and can live with that
// (tracing), not for timing short intervals.
TEXT ·Read(SB), NOSPLIT|NOFRAME, $0-8
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func End() uint64
//
// Reads the TSC at the end of a timed interval.
// RDTSCP instead of RDTSC: RDTSCP waits until all previous instructions have
// executed and all previous loads are globally visible before it reads the
// counter, so the timed code is complete when the end time is taken.
// LFENCE after RDTSCP: RDTSCP does not stop later instructions from starting
// before it reads the counter (SDM: "subsequent instructions may begin
// execution before the read operation is performed"); the LFENCE keeps the
// code that follows the interval (say, the next Start or storing the result)
// from overlapping the read. RDTSCP also returns IA32_TSC_AUX in CX, which is
// dropped here (see endAux).
TEXT ·End(SB), NOSPLIT|NOFRAME, $0-8
	RDTSCP
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func endAux() (tsc uint64, aux uint32)
//
// As End, and also returns IA32_TSC_AUX, which Linux sets to
// (NUMA node << 12) | CPU number, so a caller learns which CPU the read ran on.
// Fences as in End.
TEXT ·endAux(SB), NOSPLIT|NOFRAME, $0-12
	RDTSCP
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, tsc+0(FP)
	MOVL CX, aux+8(FP)
	RET

// func cpuidex(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuidex(SB), NOSPLIT|NOFRAME, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET
