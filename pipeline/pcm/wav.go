package pcm

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-audio/audio"
	"github.com/go-audio/wav"
)

// WAV format tags: plain integer PCM, and the extensible header that tools
// write for more than 16 bits or 2 channels.
const (
	wavPCM        = 1
	wavExtensible = 0xFFFE
)

// ReadWAV reads a whole PCM WAV file (8, 16, 24 or 32-bit integer samples).
// A file that is not a WAV, is truncated in its header or holds no samples is
// an error that says so.
func ReadWAV(r io.ReadSeeker) (Buffer, error) {
	d := wav.NewDecoder(r)
	if !d.IsValidFile() {
		return Buffer{}, errors.New("pcm: read wav: not a valid RIFF/WAVE file")
	}
	if d.WavAudioFormat != wavPCM && d.WavAudioFormat != wavExtensible {
		return Buffer{}, fmt.Errorf("pcm: read wav: audio format %d is not integer PCM", d.WavAudioFormat)
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
	full := float32(int64(1) << (ib.SourceBitDepth - 1))
	out := Buffer{Rate: ib.Format.SampleRate, Channels: ib.Format.NumChannels, Samples: make([]float32, len(ib.Data)-len(ib.Data)%ib.Format.NumChannels)}
	offset := 0
	if ib.SourceBitDepth == 8 { // 8-bit WAV samples are unsigned
		offset = 128
	}
	for i := range out.Samples {
		out.Samples[i] = float32(ib.Data[i]-offset) / full
	}
	return out, nil
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
