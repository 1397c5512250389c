//go:build amd64 && !purego

#include "textflag.h"

// Constants for geluAVX2, each broadcast to 8 lanes.
DATA geluC<>+0(SB)/4, $0x3f3504f3 // invsqrt2
DATA geluC<>+4(SB)/4, $0x3f3504f3
DATA geluC<>+8(SB)/4, $0x3f3504f3
DATA geluC<>+12(SB)/4, $0x3f3504f3
DATA geluC<>+16(SB)/4, $0x3f3504f3
DATA geluC<>+20(SB)/4, $0x3f3504f3
DATA geluC<>+24(SB)/4, $0x3f3504f3
DATA geluC<>+28(SB)/4, $0x3f3504f3
DATA geluC<>+32(SB)/4, $0xc0800000 // neg4
DATA geluC<>+36(SB)/4, $0xc0800000
DATA geluC<>+40(SB)/4, $0xc0800000
DATA geluC<>+44(SB)/4, $0xc0800000
DATA geluC<>+48(SB)/4, $0xc0800000
DATA geluC<>+52(SB)/4, $0xc0800000
DATA geluC<>+56(SB)/4, $0xc0800000
DATA geluC<>+60(SB)/4, $0xc0800000
DATA geluC<>+64(SB)/4, $0x40800000 // pos4
DATA geluC<>+68(SB)/4, $0x40800000
DATA geluC<>+72(SB)/4, $0x40800000
DATA geluC<>+76(SB)/4, $0x40800000
DATA geluC<>+80(SB)/4, $0x40800000
DATA geluC<>+84(SB)/4, $0x40800000
DATA geluC<>+88(SB)/4, $0x40800000
DATA geluC<>+92(SB)/4, $0x40800000
DATA geluC<>+96(SB)/4, $0xaf95df0b // a13
DATA geluC<>+100(SB)/4, $0xaf95df0b
DATA geluC<>+104(SB)/4, $0xaf95df0b
DATA geluC<>+108(SB)/4, $0xaf95df0b
DATA geluC<>+112(SB)/4, $0xaf95df0b
DATA geluC<>+116(SB)/4, $0xaf95df0b
DATA geluC<>+120(SB)/4, $0xaf95df0b
DATA geluC<>+124(SB)/4, $0xaf95df0b
DATA geluC<>+128(SB)/4, $0x32edffee // a11
DATA geluC<>+132(SB)/4, $0x32edffee
DATA geluC<>+136(SB)/4, $0x32edffee
DATA geluC<>+140(SB)/4, $0x32edffee
DATA geluC<>+144(SB)/4, $0x32edffee
DATA geluC<>+148(SB)/4, $0x32edffee
DATA geluC<>+152(SB)/4, $0x32edffee
DATA geluC<>+156(SB)/4, $0x32edffee
DATA geluC<>+160(SB)/4, $0xb60cff51 // a9
DATA geluC<>+164(SB)/4, $0xb60cff51
DATA geluC<>+168(SB)/4, $0xb60cff51
DATA geluC<>+172(SB)/4, $0xb60cff51
DATA geluC<>+176(SB)/4, $0xb60cff51
DATA geluC<>+180(SB)/4, $0xb60cff51
DATA geluC<>+184(SB)/4, $0xb60cff51
DATA geluC<>+188(SB)/4, $0xb60cff51
DATA geluC<>+192(SB)/4, $0xb86ec2d2 // a7
DATA geluC<>+196(SB)/4, $0xb86ec2d2
DATA geluC<>+200(SB)/4, $0xb86ec2d2
DATA geluC<>+204(SB)/4, $0xb86ec2d2
DATA geluC<>+208(SB)/4, $0xb86ec2d2
DATA geluC<>+212(SB)/4, $0xb86ec2d2
DATA geluC<>+216(SB)/4, $0xb86ec2d2
DATA geluC<>+220(SB)/4, $0xb86ec2d2
DATA geluC<>+224(SB)/4, $0xba40ac63 // a5
DATA geluC<>+228(SB)/4, $0xba40ac63
DATA geluC<>+232(SB)/4, $0xba40ac63
DATA geluC<>+236(SB)/4, $0xba40ac63
DATA geluC<>+240(SB)/4, $0xba40ac63
DATA geluC<>+244(SB)/4, $0xba40ac63
DATA geluC<>+248(SB)/4, $0xba40ac63
DATA geluC<>+252(SB)/4, $0xba40ac63
DATA geluC<>+256(SB)/4, $0xbb41a1f6 // a3
DATA geluC<>+260(SB)/4, $0xbb41a1f6
DATA geluC<>+264(SB)/4, $0xbb41a1f6
DATA geluC<>+268(SB)/4, $0xbb41a1f6
DATA geluC<>+272(SB)/4, $0xbb41a1f6
DATA geluC<>+276(SB)/4, $0xbb41a1f6
DATA geluC<>+280(SB)/4, $0xbb41a1f6
DATA geluC<>+284(SB)/4, $0xbb41a1f6
DATA geluC<>+288(SB)/4, $0xbc83dbd4 // a1
DATA geluC<>+292(SB)/4, $0xbc83dbd4
DATA geluC<>+296(SB)/4, $0xbc83dbd4
DATA geluC<>+300(SB)/4, $0xbc83dbd4
DATA geluC<>+304(SB)/4, $0xbc83dbd4
DATA geluC<>+308(SB)/4, $0xbc83dbd4
DATA geluC<>+312(SB)/4, $0xbc83dbd4
DATA geluC<>+316(SB)/4, $0xbc83dbd4
DATA geluC<>+320(SB)/4, $0xb77460cd // b8
DATA geluC<>+324(SB)/4, $0xb77460cd
DATA geluC<>+328(SB)/4, $0xb77460cd
DATA geluC<>+332(SB)/4, $0xb77460cd
DATA geluC<>+336(SB)/4, $0xb77460cd
DATA geluC<>+340(SB)/4, $0xb77460cd
DATA geluC<>+344(SB)/4, $0xb77460cd
DATA geluC<>+348(SB)/4, $0xb77460cd
DATA geluC<>+352(SB)/4, $0xb95fbd29 // b6
DATA geluC<>+356(SB)/4, $0xb95fbd29
DATA geluC<>+360(SB)/4, $0xb95fbd29
DATA geluC<>+364(SB)/4, $0xb95fbd29
DATA geluC<>+368(SB)/4, $0xb95fbd29
DATA geluC<>+372(SB)/4, $0xb95fbd29
DATA geluC<>+376(SB)/4, $0xb95fbd29
DATA geluC<>+380(SB)/4, $0xb95fbd29
DATA geluC<>+384(SB)/4, $0xbadc924e // b4
DATA geluC<>+388(SB)/4, $0xbadc924e
DATA geluC<>+392(SB)/4, $0xbadc924e
DATA geluC<>+396(SB)/4, $0xbadc924e
DATA geluC<>+400(SB)/4, $0xbadc924e
DATA geluC<>+404(SB)/4, $0xbadc924e
DATA geluC<>+408(SB)/4, $0xbadc924e
DATA geluC<>+412(SB)/4, $0xbadc924e
DATA geluC<>+416(SB)/4, $0xbbf19bf8 // b2
DATA geluC<>+420(SB)/4, $0xbbf19bf8
DATA geluC<>+424(SB)/4, $0xbbf19bf8
DATA geluC<>+428(SB)/4, $0xbbf19bf8
DATA geluC<>+432(SB)/4, $0xbbf19bf8
DATA geluC<>+436(SB)/4, $0xbbf19bf8
DATA geluC<>+440(SB)/4, $0xbbf19bf8
DATA geluC<>+444(SB)/4, $0xbbf19bf8
DATA geluC<>+448(SB)/4, $0xbc69b6a7 // b0
DATA geluC<>+452(SB)/4, $0xbc69b6a7
DATA geluC<>+456(SB)/4, $0xbc69b6a7
DATA geluC<>+460(SB)/4, $0xbc69b6a7
DATA geluC<>+464(SB)/4, $0xbc69b6a7
DATA geluC<>+468(SB)/4, $0xbc69b6a7
DATA geluC<>+472(SB)/4, $0xbc69b6a7
DATA geluC<>+476(SB)/4, $0xbc69b6a7
DATA geluC<>+480(SB)/4, $0x3f000000 // half
DATA geluC<>+484(SB)/4, $0x3f000000
DATA geluC<>+488(SB)/4, $0x3f000000
DATA geluC<>+492(SB)/4, $0x3f000000
DATA geluC<>+496(SB)/4, $0x3f000000
DATA geluC<>+500(SB)/4, $0x3f000000
DATA geluC<>+504(SB)/4, $0x3f000000
DATA geluC<>+508(SB)/4, $0x3f000000
DATA geluC<>+512(SB)/4, $0x3f800000 // one
DATA geluC<>+516(SB)/4, $0x3f800000
DATA geluC<>+520(SB)/4, $0x3f800000
DATA geluC<>+524(SB)/4, $0x3f800000
DATA geluC<>+528(SB)/4, $0x3f800000
DATA geluC<>+532(SB)/4, $0x3f800000
DATA geluC<>+536(SB)/4, $0x3f800000
DATA geluC<>+540(SB)/4, $0x3f800000
GLOBL geluC<>(SB), RODATA|NOPTR, $544

// func geluAVX2(x *float32, n int)
// x[i] = x[i]/2 (1 + erf(x[i]/sqrt 2)) with the rational erf of erf32;
// n is a positive multiple of 8.
TEXT ·geluAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
	VMOVUPS geluC<>+32(SB), Y8
	VMOVUPS geluC<>+64(SB), Y9
	VMOVUPS geluC<>+96(SB), Y10
	VMOVUPS geluC<>+320(SB), Y11
	VMOVUPS geluC<>+0(SB), Y12
	VMOVUPS geluC<>+480(SB), Y13
	VMOVUPS geluC<>+512(SB), Y14

loopg:
	VMOVUPS (SI)(AX*1), Y0
	VMULPS Y12, Y0, Y1
	VMAXPS Y8, Y1, Y1
	VMINPS Y9, Y1, Y1
	VMULPS Y1, Y1, Y2
	VMOVAPS Y10, Y3
	VFMADD213PS geluC<>+128(SB), Y2, Y3
	VFMADD213PS geluC<>+160(SB), Y2, Y3
	VFMADD213PS geluC<>+192(SB), Y2, Y3
	VFMADD213PS geluC<>+224(SB), Y2, Y3
	VFMADD213PS geluC<>+256(SB), Y2, Y3
	VFMADD213PS geluC<>+288(SB), Y2, Y3
	VMULPS Y1, Y3, Y3
	VMOVAPS Y11, Y4
	VFMADD213PS geluC<>+352(SB), Y2, Y4
	VFMADD213PS geluC<>+384(SB), Y2, Y4
	VFMADD213PS geluC<>+416(SB), Y2, Y4
	VFMADD213PS geluC<>+448(SB), Y2, Y4
	VDIVPS Y4, Y3, Y3
	VADDPS Y14, Y3, Y3
	VMULPS Y13, Y0, Y0
	VMULPS Y3, Y0, Y0
	VMOVUPS Y0, (SI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loopg

	VZEROUPPER
	RET

// func geluAVX512(x *float32, n int)
// geluAVX2 on 16 lanes, the same operations in the same order (equal
// results); n is a positive multiple of 16.
TEXT ·geluAVX512(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
	VBROADCASTSS geluC<>+32(SB), Z8
	VBROADCASTSS geluC<>+64(SB), Z9
	VBROADCASTSS geluC<>+96(SB), Z10
	VBROADCASTSS geluC<>+320(SB), Z11
	VBROADCASTSS geluC<>+0(SB), Z12
	VBROADCASTSS geluC<>+480(SB), Z13
	VBROADCASTSS geluC<>+512(SB), Z14
	VBROADCASTSS geluC<>+128(SB), Z15
	VBROADCASTSS geluC<>+160(SB), Z16
	VBROADCASTSS geluC<>+192(SB), Z17
	VBROADCASTSS geluC<>+224(SB), Z18
	VBROADCASTSS geluC<>+256(SB), Z19
	VBROADCASTSS geluC<>+288(SB), Z20
	VBROADCASTSS geluC<>+352(SB), Z21
	VBROADCASTSS geluC<>+384(SB), Z22
	VBROADCASTSS geluC<>+416(SB), Z23
	VBROADCASTSS geluC<>+448(SB), Z24

loopg16:
	VMOVUPS (SI)(AX*1), Z0
	VMULPS Z12, Z0, Z1
	VMAXPS Z8, Z1, Z1
	VMINPS Z9, Z1, Z1
	VMULPS Z1, Z1, Z2
	VMOVAPS Z10, Z3
	VFMADD213PS Z15, Z2, Z3
	VFMADD213PS Z16, Z2, Z3
	VFMADD213PS Z17, Z2, Z3
	VFMADD213PS Z18, Z2, Z3
	VFMADD213PS Z19, Z2, Z3
	VFMADD213PS Z20, Z2, Z3
	VMULPS Z1, Z3, Z3
	VMOVAPS Z11, Z4
	VFMADD213PS Z21, Z2, Z4
	VFMADD213PS Z22, Z2, Z4
	VFMADD213PS Z23, Z2, Z4
	VFMADD213PS Z24, Z2, Z4
	VDIVPS Z4, Z3, Z3
	VADDPS Z14, Z3, Z3
	VMULPS Z13, Z0, Z0
	VMULPS Z3, Z0, Z0
	VMOVUPS Z0, (SI)(AX*1)
	ADDQ $64, AX
	CMPQ AX, CX
	JLT  loopg16

	VZEROUPPER
	RET
