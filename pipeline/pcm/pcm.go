// Package pcm holds Hark's audio buffers and converts between the formats that
// microphones, speech engines and speakers use: sample rate, channel count and
// sample encoding. It also reads and writes WAV files.
//
// Inside Hark audio travels as a Buffer of interleaved float32 samples in
// [-1, 1]. Devices encode and decode raw bytes at their edge with Encode and
// Decode; everything between them works on Buffers.
package pcm

import (
	"fmt"
	"strings"
	"time"
)

// Encoding is how one sample is laid out in raw device bytes. All encodings
// are little-endian, as ALSA names them.
type Encoding int

// The encodings Hark's devices use.
const (
	S16LE Encoding = iota + 1 // signed 16-bit, the common codec format
	S32LE                     // signed 32-bit, what I2S MEMS microphones deliver
	F32LE                     // IEEE float, what some USB devices and whisper.cpp use
)

// Size is the number of bytes one sample takes.
func (e Encoding) Size() int {
	switch e {
	case S16LE:
		return 2
	case S32LE, F32LE:
		return 4
	}
	return 0
}

// String returns the ALSA name of the encoding, such as "S16_LE".
func (e Encoding) String() string {
	switch e {
	case S16LE:
		return "S16_LE"
	case S32LE:
		return "S32_LE"
	case F32LE:
		return "FLOAT_LE"
	}
	return fmt.Sprintf("Encoding(%d)", int(e))
}

// ParseEncoding reads an ALSA-style encoding name ("S16_LE", "s32le", "FLOAT_LE").
func ParseEncoding(s string) (Encoding, error) {
	switch strings.ToUpper(strings.ReplaceAll(s, "_", "")) {
	case "S16LE":
		return S16LE, nil
	case "S32LE":
		return S32LE, nil
	case "FLOATLE", "F32LE":
		return F32LE, nil
	}
	return 0, fmt.Errorf("pcm: unknown sample encoding %q (want S16_LE, S32_LE or FLOAT_LE)", s)
}

// Format describes a stream of raw audio: frames per second, samples per frame
// and the encoding of each sample.
type Format struct {
	Rate     int
	Channels int
	Encoding Encoding
}

// Validate reports whether f describes audio Hark can handle.
func (f Format) Validate() error {
	switch {
	case f.Rate < 4000 || f.Rate > 384000:
		return fmt.Errorf("pcm: sample rate %d Hz out of range 4000..384000", f.Rate)
	case f.Channels < 1 || f.Channels > 8:
		return fmt.Errorf("pcm: %d channels out of range 1..8", f.Channels)
	case f.Encoding.Size() == 0:
		return fmt.Errorf("pcm: unknown sample encoding %d", int(f.Encoding))
	}
	return nil
}

func (f Format) String() string {
	return fmt.Sprintf("%d Hz %dch %s", f.Rate, f.Channels, f.Encoding)
}

// Speech is the format speech recognition wants: 16 kHz mono.
const (
	SpeechRate     = 16000
	SpeechChannels = 1
)

// Buffer is audio as Hark passes it around: interleaved float32 samples in
// [-1, 1]. A Buffer owns its Samples; functions that return a new Buffer never
// alias the input's slice unless they say so.
type Buffer struct {
	Rate     int
	Channels int
	Samples  []float32
}

// Frames is the number of sample frames (one sample per channel) in b.
func (b Buffer) Frames() int {
	if b.Channels == 0 {
		return 0
	}
	return len(b.Samples) / b.Channels
}

// Duration is how long b plays.
func (b Buffer) Duration() time.Duration {
	if b.Rate == 0 {
		return 0
	}
	return time.Duration(b.Frames()) * time.Second / time.Duration(b.Rate)
}

// Slice returns frames [from, to) of b, sharing b's storage.
func (b Buffer) Slice(from, to int) Buffer {
	return Buffer{Rate: b.Rate, Channels: b.Channels, Samples: b.Samples[from*b.Channels : to*b.Channels]}
}

// FramesIn returns how many frames at rate make up d, rounded down.
func FramesIn(d time.Duration, rate int) int {
	return int(d * time.Duration(rate) / time.Second)
}
