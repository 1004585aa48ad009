package wasmbin

// Opcodes used by the helpers.
const (
	opUnreachable = 0x00
	opBlock       = 0x02
	opLoop        = 0x03
	opIf          = 0x04
	opElse        = 0x05
	opEnd         = 0x0b
	opBr          = 0x0c
	opBrIf        = 0x0d
	opReturn      = 0x0f
	opCall        = 0x10
	opDrop        = 0x1a
	opLocalGet    = 0x20
	opLocalSet    = 0x21
	opLocalTee    = 0x22
	opGlobalGet   = 0x23
	opGlobalSet   = 0x24
	opI32Load     = 0x28
	opI32Store    = 0x36
	opI32Store8   = 0x3a
	opMemorySize  = 0x3f
	opMemoryGrow  = 0x40
	opI32Const    = 0x41
	opI64Const    = 0x42
	opI32Eqz      = 0x45
	opI32Eq       = 0x46
	opI32LtU      = 0x49
	opI32GtU      = 0x4b
	opI32LeU      = 0x4d
	opI32Shl      = 0x74
	opI32Add      = 0x6a
	opI32Sub      = 0x6b
	opI32And      = 0x71
	opI32ShrU     = 0x76
	opI64Or       = 0x84
	opI64Shl      = 0x86
	opI64ExtendU  = 0xad
	blockEmpty    = 0x40
)

// Simple instructions, one byte each.
var (
	Unreachable = []byte{opUnreachable}
	End         = []byte{opEnd}
	Else        = []byte{opElse}
	Return      = []byte{opReturn}
	Drop        = []byte{opDrop}
	MemorySize  = []byte{opMemorySize, 0}
	I32Eqz      = []byte{opI32Eqz}
	I32Eq       = []byte{opI32Eq}
	I32LtU      = []byte{opI32LtU}
	I32GtU      = []byte{opI32GtU}
	I32LeU      = []byte{opI32LeU}
	I32Shl      = []byte{opI32Shl}
	I32Add      = []byte{opI32Add}
	I32Sub      = []byte{opI32Sub}
	I32And      = []byte{opI32And}
	I32ShrU     = []byte{opI32ShrU}
	I64Or       = []byte{opI64Or}
	I64Shl      = []byte{opI64Shl}
	// I64ExtendI32U is i64.extend_i32_u.
	I64ExtendI32U = []byte{opI64ExtendU}
	// MemoryGrow is memory.grow on memory 0: pages → old size or -1.
	MemoryGrow = []byte{opMemoryGrow, 0}
)

// I32Const is i32.const v.
func I32Const(v int32) []byte { return s64([]byte{opI32Const}, int64(v)) }

// I64Const is i64.const v.
func I64Const(v int64) []byte { return s64([]byte{opI64Const}, v) }

// LocalGet is local.get i.
func LocalGet(i uint32) []byte { return u32([]byte{opLocalGet}, i) }

// LocalSet is local.set i.
func LocalSet(i uint32) []byte { return u32([]byte{opLocalSet}, i) }

// LocalTee is local.tee i.
func LocalTee(i uint32) []byte { return u32([]byte{opLocalTee}, i) }

// GlobalGet is global.get i.
func GlobalGet(i uint32) []byte { return u32([]byte{opGlobalGet}, i) }

// GlobalSet is global.set i.
func GlobalSet(i uint32) []byte { return u32([]byte{opGlobalSet}, i) }

// Call is call f.
func Call(f uint32) []byte { return u32([]byte{opCall}, f) }

// Block starts a block without results.
func Block() []byte { return []byte{opBlock, blockEmpty} }

// Loop starts a loop without results.
func Loop() []byte { return []byte{opLoop, blockEmpty} }

// If starts an if without results.
func If() []byte { return []byte{opIf, blockEmpty} }

// Br is br depth.
func Br(depth uint32) []byte { return u32([]byte{opBr}, depth) }

// BrIf is br_if depth.
func BrIf(depth uint32) []byte { return u32([]byte{opBrIf}, depth) }

// I32Load is i32.load with alignment 2 and the given offset.
func I32Load(offset uint32) []byte { return u32([]byte{opI32Load, 2}, offset) }

// PackPtrLen pushes the ABI result ptr<<32|len (an i64) for constants.
func PackPtrLen(ptr, n uint32) []byte { return I64Const(int64(uint64(ptr)<<32 | uint64(n))) }
