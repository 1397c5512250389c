//go:build amd64 && !purego

#include "textflag.h"

DATA expC<>+0(SB)/4, $0xc2ae999a  // -87.3
DATA expC<>+4(SB)/4, $0x42b0999a  // 88.3
DATA expC<>+8(SB)/4, $0x3fb8aa3b  // log2e
DATA expC<>+12(SB)/4, $0x3f000000 // 0.5
DATA expC<>+16(SB)/4, $0x3f318000 // c1 = 0.693359375
DATA expC<>+20(SB)/4, $0xb95e8083 // c2 = -2.12194440e-4
DATA expC<>+24(SB)/4, $0x39506967 // p0 = 1.9875691500e-4
DATA expC<>+28(SB)/4, $0x3ab743ce // p1 = 1.3981999507e-3
DATA expC<>+32(SB)/4, $0x3c088908 // p2 = 8.3334519073e-3
DATA expC<>+36(SB)/4, $0x3d2aa9c1 // p3 = 4.1665795894e-2
DATA expC<>+40(SB)/4, $0x3e2aaaaa // p4 = 1.6666665459e-1
DATA expC<>+44(SB)/4, $0x3f000000 // p5 = 5.0000001201e-1
DATA expC<>+48(SB)/4, $0x3f800000 // 1
DATA expC<>+52(SB)/4, $0x0000007f // 127
GLOBL expC<>(SB), RODATA|NOPTR, $56

// func maxAVX2(x *float32, n int) float32
// The largest x[i]; n is a positive multiple of 8.
TEXT ·maxAVX2(SB), NOSPLIT, $0-20
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	VMOVUPS (SI), Y0
	MOVQ $32, AX
	CMPQ AX, CX
	JGE  maxdone

loopm:
	VMAXPS (SI)(AX*1), Y0, Y0
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loopm

maxdone:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	VZEROUPPER
	MOVSS X0, ret+16(FP)
	RET

// func expAVX2(x *float32, n int, scale, sub float32) float32
// x[i] = exp(x[i]*scale - sub) with the polynomial of exp32, and returns
// the sum of the new x[i] (eight running sums, added at the end); n is a
// positive multiple of 8.
TEXT ·expAVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
	VBROADCASTSS scale+16(FP), Y14
	VBROADCASTSS sub+20(FP), Y15
	VBROADCASTSS expC<>+0(SB), Y8
	VBROADCASTSS expC<>+4(SB), Y9
	VBROADCASTSS expC<>+8(SB), Y10
	VBROADCASTSS expC<>+12(SB), Y11
	VBROADCASTSS expC<>+48(SB), Y12
	VPBROADCASTD expC<>+52(SB), Y13
	VXORPS Y7, Y7, Y7

loope:
	VMOVUPS (SI)(AX*1), Y0
	VMULPS Y14, Y0, Y0
	VSUBPS Y15, Y0, Y0
	VMAXPS Y8, Y0, Y0
	VMINPS Y9, Y0, Y0
	VMULPS Y10, Y0, Y1
	VADDPS Y11, Y1, Y1
	VROUNDPS $1, Y1, Y1 // floor
	VBROADCASTSS expC<>+16(SB), Y2
	VMULPS Y2, Y1, Y2
	VSUBPS Y2, Y0, Y0
	VBROADCASTSS expC<>+20(SB), Y2
	VMULPS Y2, Y1, Y2
	VSUBPS Y2, Y0, Y0
	VBROADCASTSS expC<>+24(SB), Y3
	VBROADCASTSS expC<>+28(SB), Y4
	VFMADD213PS Y4, Y0, Y3
	VBROADCASTSS expC<>+32(SB), Y4
	VFMADD213PS Y4, Y0, Y3
	VBROADCASTSS expC<>+36(SB), Y4
	VFMADD213PS Y4, Y0, Y3
	VBROADCASTSS expC<>+40(SB), Y4
	VFMADD213PS Y4, Y0, Y3
	VBROADCASTSS expC<>+44(SB), Y4
	VFMADD213PS Y4, Y0, Y3
	VMULPS Y0, Y0, Y5
	VMULPS Y5, Y3, Y3
	VADDPS Y0, Y3, Y3
	VADDPS Y12, Y3, Y3
	VCVTTPS2DQ Y1, Y1
	VPADDD Y13, Y1, Y1
	VPSLLD $23, Y1, Y1
	VMULPS Y1, Y3, Y3
	VMOVUPS Y3, (SI)(AX*1)
	VADDPS Y3, Y7, Y7
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loope

	VEXTRACTF128 $1, Y7, X1
	VADDPS X1, X7, X7
	VPERMILPS $0x4e, X7, X1
	VADDPS X1, X7, X7
	VPERMILPS $0xb1, X7, X1
	VADDPS X1, X7, X7
	VZEROUPPER
	MOVSS X7, ret+24(FP)
	RET

// func meanVarAVX2(x *float32, n int) (mean, m2 float64)
// The mean of x[0:n] and the sum of squared deviations from it, both
// accumulated in float64 (two passes); n is a positive multiple of 8.
TEXT ·meanVarAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

loopmv1:
	VCVTPS2PD (SI)(AX*1), Y2
	VCVTPS2PD 16(SI)(AX*1), Y3
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loopmv1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	MOVQ n+8(FP), DX
	VCVTSI2SDQ DX, X5, X5
	VDIVSD X5, X0, X0
	VMOVSD X0, mean+16(FP)
	VBROADCASTSD X0, Y4
	XORQ AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

loopmv2:
	VCVTPS2PD (SI)(AX*1), Y2
	VCVTPS2PD 16(SI)(AX*1), Y3
	VSUBPD Y4, Y2, Y2
	VSUBPD Y4, Y3, Y3
	VFMADD231PD Y2, Y2, Y0
	VFMADD231PD Y3, Y3, Y1
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loopmv2
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VMOVSD X0, m2+24(FP)
	VZEROUPPER
	RET

// func normApplyAVX2(x *float32, n int, gamma, beta *float32, mean, inv float32)
// x[i] = (x[i]-mean)*inv*gamma[i] + beta[i]; n is a positive multiple of 8.
TEXT ·normApplyAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	MOVQ gamma+16(FP), DI
	MOVQ beta+24(FP), DX
	VBROADCASTSS mean+32(FP), Y4
	VBROADCASTSS inv+36(FP), Y5
	XORQ AX, AX

loopna:
	VMOVUPS (SI)(AX*1), Y0
	VSUBPS Y4, Y0, Y0
	VMULPS Y5, Y0, Y0
	VMOVUPS (DX)(AX*1), Y1
	VFMADD132PS (DI)(AX*1), Y1, Y0
	VMOVUPS Y0, (SI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loopna
	VZEROUPPER
	RET
