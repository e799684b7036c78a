package benchmodel

import (
	"encoding/binary"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
)

// GGML tensor types.
const (
	kindF32 = 0
	kindF16 = 1
)

// chunk is how many elements weights generates per write: 256 Ki, half a
// megabyte of F16.
const chunk = 256 << 10

// weights is a tensor's data, generated as it is written: n elements that
// are values, or all value, or drawn from a normal distribution with
// standard deviation std by a PCG generator seeded with seed and a hash of
// name, so that every tensor gets its own stream whatever order the tensors
// are written in.
type weights struct {
	n      uint64
	f32    bool // F32, else F16
	values []float32
	value  float32
	std    float32
	seed   uint64
	name   string
}

func (w weights) kind() uint32 {
	if w.f32 {
		return kindF32
	}
	return kindF16
}

// WriteTo writes the tensor's elements, little-endian, to out.
func (w weights) WriteTo(out io.Writer) (int64, error) {
	var rng *rand.Rand
	if w.std != 0 {
		h := fnv.New64a()
		io.WriteString(h, w.name)
		rng = rand.New(rand.NewPCG(w.seed, h.Sum64()))
	}
	size := uint64(2)
	if w.f32 {
		size = 4
	}
	f := make([]float32, min(w.n, chunk))
	buf := make([]byte, uint64(len(f))*size)
	var written int64
	for i := uint64(0); i < w.n; {
		m := min(chunk, w.n-i)
		f := f[:m]
		switch {
		case w.values != nil:
			copy(f, w.values[i:i+m])
		case rng != nil:
			for j := range f {
				f[j] = float32(rng.NormFloat64()) * w.std
			}
		default:
			for j := range f {
				f[j] = w.value
			}
		}
		b := buf[:m*size]
		if w.f32 {
			for j, x := range f {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
		} else {
			for j, x := range f {
				binary.LittleEndian.PutUint16(b[2*j:], float16(x))
			}
		}
		k, err := out.Write(b)
		written += int64(k)
		if err != nil {
			return written, err
		}
		i += m
	}
	return written, nil
}

// float16 is x as an IEEE 754 half-precision number, rounded to nearest,
// ties to even, as ggml's own conversion does.
func float16(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 31: // too large, or infinite
		return sign | 0x7c00
	case exp <= 0: // a subnormal half, or zero
		shift := uint32(14 - exp)
		if shift > 24 {
			return sign
		}
		m := mant | 0x800000
		h := m >> shift
		rem, half := m&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, up to infinity: still right
	}
	return sign | uint16(h)
}
