#include "textflag.h"

// func request(args *[6]uintptr) uintptr
//
// valgrind's client request on amd64 (valgrind.h): the rotations of DI
// by 3, 13, 61 and 51 bits (128 in all, so DI is unchanged) followed by
// xchgq %rbx,%rbx, with AX pointing at the request and its arguments.
// valgrind answers in DX; natively the sequence does nothing, leaving
// DX's 0.
TEXT ·request(SB), NOSPLIT, $0-16
	MOVQ args+0(FP), AX
	MOVQ $0, DX
	ROLQ $3, DI
	ROLQ $13, DI
	ROLQ $61, DI
	ROLQ $51, DI
	XCHGQ BX, BX
	MOVQ DX, ret+8(FP)
	RET
