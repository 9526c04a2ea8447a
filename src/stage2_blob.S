/*
 * stage2_blob.S - stage two's static binary, carried inside sbox-exec so
 * that launch.c can run it from a sealed memfd: nothing to find on disk,
 * and always the stage two built with this sbox-exec.
 */
	.section .rodata
	.balign 16
	.globl	sbox_stage2_blob
sbox_stage2_blob:
	.incbin	"sbox-exec-stage2"
	.globl	sbox_stage2_blob_end
sbox_stage2_blob_end:
	.section .note.GNU-stack,"",%progbits
