;; minimal.wat — the smallest agent-harness plugin, written by hand without
;; any SDK, to show that ABI v1 (sdk/ABI.md) is language-neutral.
;;
;; Every hook answers "no opinion" (result 0: length 0), which the host
;; treats like a plugin with nothing to say: the classifier falls through,
;; the built-in equivalence decides, the fault "noop" passes every call.
;;
;; No WAT toolchain is needed to build it: minimal.go (Assemble) assembles exactly
;; this module with a tiny encoder, and `go test ./plugins/minimal` checks
;; that minimal.wasm is up to date (-update rewrites it).
(module
  ;; One page: the manifest at 16, the heap from 1024 up.
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (data (i32.const 16)
    "{\"abi\":1,\"name\":\"minimal\",\"version\":\"0.1.0\",\"hooks\":[\"classify\",\"equiv_key\",\"fault\"],\"faults\":[\"noop\"]}")

  ;; The ABI marker: never called.
  (func (export "ah_abi_v1"))

  ;; A bump allocator that grows memory on demand and returns 0 when it
  ;; cannot. It never frees: the host keeps one input buffer per instance
  ;; and asks for a bigger one only when an input does not fit.
  (func (export "ah_alloc") (param $size i32) (result i32)
    (local $p i32) (local $end i32)
    (local.set $p (global.get $heap))
    ;; end = (heap + size + 7) & ~7
    (local.set $end
      (i32.and (i32.add (i32.add (global.get $heap) (local.get $size)) (i32.const 7))
               (i32.const -8)))
    (block $fits
      (br_if $fits (i32.le_u (local.get $end) (i32.shl (memory.size) (i32.const 16))))
      ;; grow by ceil((end - size_in_bytes) / 65536) pages
      (if (i32.eq
            (memory.grow
              (i32.shr_u
                (i32.add (i32.sub (local.get $end) (i32.shl (memory.size) (i32.const 16)))
                         (i32.const 65535))
                (i32.const 16)))
            (i32.const -1))
        (then (return (i32.const 0)))))
    (global.set $heap (local.get $end))
    (local.get $p))

  (func (export "ah_free") (param $ptr i32))

  ;; ptr 16 << 32 | len 103
  (func (export "ah_manifest") (result i64) (i64.const 68719476839))

  ;; Any configuration is fine.
  (func (export "ah_init") (param $ptr i32) (param $len i32) (result i64) (i64.const 0))

  (func (export "ah_classify") (param $ptr i32) (param $len i32) (result i64) (i64.const 0))
  (func (export "ah_equiv_key") (param $ptr i32) (param $len i32) (result i64) (i64.const 0))
  (func (export "ah_fault") (param $ptr i32) (param $len i32) (result i64) (i64.const 0))
)
