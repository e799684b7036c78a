package pcm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/go-audio/audio"
	"github.com/go-audio/wav"
)

// WAV format tags: integer PCM, IEEE float, and the extensible header that
// tools write for more than 16 bits or 2 channels, whose SubFormat GUID
// says which of the two the samples are.
const (
	wavPCM        = 1
	wavFloat      = 3
	wavExtensible = 0xFFFE
)

// unknownSize is the RIFF and data size of a WAV written where the writer
// cannot seek back to fill them in: a pipe (ffmpeg ... -f wav pipe:1).
const unknownSize = 0xFFFFFFFF

// ReadWAV reads a whole WAV file: integer PCM (8, 16, 24 or 32 bits) or
// 32-bit IEEE float, with the plain or the extensible header. A file
// written through a pipe, whose sizes say "unknown", is read to its end. A
// file that is not a WAV, holds other samples, is truncated in its header
// or holds no samples is an error that says so.
//
// go-audio/wav decodes every file; ReadWAV reads the chunk headers itself
// first, for what go-audio/wav does not give: the extensible header's
// SubFormat, which it skips (and decodes float bits as integers), and the
// streamed file's sizes, which it takes as given and so finds no samples.
func ReadWAV(r io.ReadSeeker) (Buffer, error) {
	h, err := readWAVHeader(r)
	if err != nil {
		return Buffer{}, err
	}
	format, err := h.sampleFormat()
	if err != nil {
		return Buffer{}, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return Buffer{}, fmt.Errorf("pcm: read wav: %w", err)
	}
	if h.streamed() {
		if r, err = h.sized(r); err != nil {
			return Buffer{}, err
		}
	}
	d := wav.NewDecoder(r)
	if !d.IsValidFile() {
		return Buffer{}, errors.New("pcm: read wav: not a valid RIFF/WAVE file")
	}
	ib, err := d.FullPCMBuffer()
	if err != nil {
		return Buffer{}, fmt.Errorf("pcm: read wav: %w", err)
	}
	if ib.Format == nil || ib.Format.NumChannels < 1 || ib.Format.SampleRate < 1 {
		return Buffer{}, errors.New("pcm: read wav: header names no channels or sample rate")
	}
	if len(ib.Data) == 0 {
		return Buffer{}, errors.New("pcm: read wav: no samples")
	}
	out := Buffer{Rate: ib.Format.SampleRate, Channels: ib.Format.NumChannels, Samples: make([]float32, len(ib.Data)-len(ib.Data)%ib.Format.NumChannels)}
	if format == wavFloat {
		// go-audio/wav gives each 32-bit sample's bits as an integer.
		for i := range out.Samples {
			v := math.Float32frombits(uint32(int32(ib.Data[i])))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				v = 0
			}
			out.Samples[i] = v
		}
		return out, nil
	}
	full := float32(int64(1) << (ib.SourceBitDepth - 1))
	offset := 0
	if ib.SourceBitDepth == 8 { // 8-bit WAV samples are unsigned
		offset = 128
	}
	for i := range out.Samples {
		out.Samples[i] = float32(ib.Data[i]-offset) / full
	}
	return out, nil
}

// wavHeader is what ReadWAV reads of a WAV file's chunks before
// go-audio/wav decodes it.
type wavHeader struct {
	riffSize   uint32
	format     uint16
	bits       uint16
	blockAlign uint16
	subFormat  [16]byte // the extensible header's
	dataAt     int64    // where the data chunk's size is written
	dataSize   uint32
}

// readWAVHeader reads the RIFF header and the chunk headers up to the data
// chunk's.
func readWAVHeader(r io.ReadSeeker) (wavHeader, error) {
	var h wavHeader
	le := binary.LittleEndian
	var head [12]byte
	if _, err := io.ReadFull(r, head[:]); err != nil || string(head[:4]) != "RIFF" || string(head[8:]) != "WAVE" {
		return h, errors.New("pcm: read wav: not a valid RIFF/WAVE file")
	}
	h.riffSize = le.Uint32(head[4:])
	pos, sawFormat := int64(len(head)), false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return h, errors.New("pcm: read wav: no data chunk")
		}
		id, size := string(ch[:4]), le.Uint32(ch[4:])
		pos += int64(len(ch))
		switch id {
		case "data":
			if !sawFormat {
				return h, errors.New("pcm: read wav: the data comes before its format")
			}
			h.dataAt, h.dataSize = pos-4, size
			return h, nil
		case "fmt ":
			body := make([]byte, min(size, 40))
			if _, err := io.ReadFull(r, body); err != nil || len(body) < 16 {
				return h, errors.New("pcm: read wav: truncated format chunk")
			}
			h.format, h.blockAlign, h.bits = le.Uint16(body), le.Uint16(body[12:]), le.Uint16(body[14:])
			if h.format == wavExtensible {
				if len(body) < 40 {
					return h, errors.New("pcm: read wav: the extensible format chunk is too short to name its sample format")
				}
				copy(h.subFormat[:], body[24:40])
			}
			sawFormat = true
			size -= uint32(len(body))
			pos += int64(len(body))
		}
		skip := int64(size) + int64(size&1) // chunks are padded to even sizes
		if _, err := r.Seek(skip, io.SeekCurrent); err != nil {
			return h, fmt.Errorf("pcm: read wav: %w", err)
		}
		pos += skip
	}
}

// ksDataFormat ends the SubFormat GUIDs of the formats that also have a
// format tag, which the GUID's first four bytes hold (little-endian).
var ksDataFormat = []byte{0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71}

// sampleFormat is how the samples are written, wavPCM or wavFloat, or an
// error naming a format ReadWAV cannot read.
func (h wavHeader) sampleFormat() (uint16, error) {
	format := h.format
	if format == wavExtensible {
		g := h.subFormat
		tag := binary.LittleEndian.Uint32(g[:4])
		if !bytes.Equal(g[4:], ksDataFormat) || (tag != wavPCM && tag != wavFloat) {
			return 0, fmt.Errorf("pcm: read wav: the extensible header's sample format %08x-%x-%x-%x-%x is neither integer PCM nor IEEE float",
				tag, []byte{g[5], g[4]}, []byte{g[7], g[6]}, g[8:10], g[10:])
		}
		format = uint16(tag)
	}
	switch {
	case format == wavPCM:
	case format == wavFloat && h.bits == 32:
	case format == wavFloat:
		return 0, fmt.Errorf("pcm: read wav: %d-bit float samples: only 32-bit float is read", h.bits)
	default:
		return 0, fmt.Errorf("pcm: read wav: audio format %d is neither integer PCM nor IEEE float", format)
	}
	return format, nil
}

// streamed reports a data chunk whose size says "unknown": it runs to the
// end of the file. A writer that leaves the sizes at zero does the same.
func (h wavHeader) streamed() bool {
	return h.dataSize == unknownSize || h.dataSize == 0 && (h.riffSize == 0 || h.riffSize == unknownSize)
}

// sized is a streamed file read whole, its RIFF and data sizes set to what
// the file holds, for go-audio/wav to decode as any other. go-audio/wav
// reads the data chunk through a reader limited to its size, rounded up to
// even first, which turns 0xFFFFFFFF into 0: it finds no samples and
// cannot be told to read to the end. Every WAV is still decoded by it, as
// the product card has it; only the header it is given is corrected here.
func (h wavHeader) sized(r io.Reader) (io.ReadSeeker, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("pcm: read wav: %w", err)
	}
	samples := int64(len(data)) - h.dataAt - 4
	if h.blockAlign > 0 {
		samples -= samples % int64(h.blockAlign)
	}
	if samples >= unknownSize {
		return nil, errors.New("pcm: read wav: a streamed file of 4 GiB or more")
	}
	le := binary.LittleEndian
	le.PutUint32(data[4:], uint32(len(data)-8))
	le.PutUint32(data[h.dataAt:], uint32(samples))
	return bytes.NewReader(data), nil
}

// WAVWriter writes a WAV file a piece at a time, as a reply is played. Close
// finishes the header; a file whose writer was never closed still holds its
// samples but declares no length.
type WAVWriter struct {
	enc      *wav.Encoder
	channels int
	scale    int64
	ib       audio.IntBuffer
}

// NewWAVWriter starts a WAV file on w with the given rate, channels and bit
// depth (16, 24 or 32).
func NewWAVWriter(w io.WriteSeeker, rate, channels, bitDepth int) (*WAVWriter, error) {
	switch bitDepth {
	case 16, 24, 32:
	default:
		return nil, fmt.Errorf("pcm: write wav: unsupported bit depth %d", bitDepth)
	}
	return &WAVWriter{
		enc:      wav.NewEncoder(w, rate, bitDepth, channels, 1),
		channels: channels,
		scale:    int64(1) << (bitDepth - 1),
		ib:       audio.IntBuffer{Format: &audio.Format{NumChannels: channels, SampleRate: rate}, SourceBitDepth: bitDepth},
	}, nil
}

// Write appends b, which must have the writer's channel count.
func (w *WAVWriter) Write(b Buffer) error {
	if b.Channels != w.channels {
		return fmt.Errorf("pcm: write wav: buffer has %d channels, file has %d", b.Channels, w.channels)
	}
	w.ib.Data = w.ib.Data[:0]
	for _, v := range b.Samples {
		w.ib.Data = append(w.ib.Data, int(toInt(v, w.scale)))
	}
	if err := w.enc.Write(&w.ib); err != nil {
		return fmt.Errorf("pcm: write wav: %w", err)
	}
	return nil
}

// Close writes the final header sizes. It does not close the underlying file.
func (w *WAVWriter) Close() error {
	if err := w.enc.Close(); err != nil {
		return fmt.Errorf("pcm: write wav: %w", err)
	}
	return nil
}

// WriteWAV writes b to w as a whole WAV file with the given bit depth.
func WriteWAV(w io.WriteSeeker, b Buffer, bitDepth int) error {
	ww, err := NewWAVWriter(w, b.Rate, b.Channels, bitDepth)
	if err != nil {
		return err
	}
	if err := ww.Write(b); err != nil {
		return err
	}
	return ww.Close()
}
