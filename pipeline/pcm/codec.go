package pcm

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Decode appends the samples held in raw bytes src, encoded as e, to dst as
// floats in [-1, 1]. src must hold whole samples.
func Decode(dst []float32, src []byte, e Encoding) ([]float32, error) {
	size := e.Size()
	if size == 0 {
		return dst, fmt.Errorf("pcm: decode: unknown encoding %d", int(e))
	}
	if len(src)%size != 0 {
		return dst, fmt.Errorf("pcm: decode %s: %d bytes is not a whole number of samples", e, len(src))
	}
	for i := 0; i < len(src); i += size {
		var v float32
		switch e {
		case S16LE:
			v = float32(int16(binary.LittleEndian.Uint16(src[i:]))) / 32768
		case S32LE:
			v = float32(float64(int32(binary.LittleEndian.Uint32(src[i:]))) / 2147483648)
		case F32LE:
			v = math.Float32frombits(binary.LittleEndian.Uint32(src[i:]))
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// Encode appends src to dst as raw bytes in encoding e. Samples beyond
// [-1, 1] are clipped for the integer encodings.
func Encode(dst []byte, src []float32, e Encoding) []byte {
	for _, v := range src {
		switch e {
		case S16LE:
			dst = binary.LittleEndian.AppendUint16(dst, uint16(toInt(v, 1<<15)))
		case S32LE:
			dst = binary.LittleEndian.AppendUint32(dst, uint32(toInt(v, 1<<31)))
		case F32LE:
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
	}
	return dst
}

// toInt scales v by scale (2^(bits-1)), the same factor Decode divides by,
// rounds to nearest and clips to the integer range [-scale, scale-1].
func toInt(v float32, scale int64) int64 {
	x := math.Round(float64(v) * float64(scale))
	switch {
	case x > float64(scale-1):
		return scale - 1
	case x < float64(-scale):
		return -scale
	}
	return int64(x)
}
