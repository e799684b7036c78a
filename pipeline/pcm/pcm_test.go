package pcm

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/memfile"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	in := []float32{0, 0.5, -0.5, 0.999, -1, 0.25}
	for _, e := range []Encoding{S16LE, S32LE, F32LE} {
		raw := Encode(nil, in, e)
		if got, want := len(raw), len(in)*e.Size(); got != want {
			t.Fatalf("%s: encoded %d bytes, want %d", e, got, want)
		}
		out, err := Decode(nil, raw, e)
		if err != nil {
			t.Fatalf("%s: decode: %v", e, err)
		}
		tol := 1.0 / 32768
		for i := range in {
			if d := math.Abs(float64(out[i] - in[i])); d > tol {
				t.Errorf("%s: sample %d: got %v want %v", e, i, out[i], in[i])
			}
		}
	}
}

func TestEncodeClipsAndKnownBytes(t *testing.T) {
	tests := []struct {
		e    Encoding
		in   float32
		want []byte
	}{
		{S16LE, 2, []byte{0xff, 0x7f}},
		{S16LE, -2, []byte{0x00, 0x80}},
		{S16LE, 0.5, []byte{0x00, 0x40}},
		{S32LE, 1, []byte{0xff, 0xff, 0xff, 0x7f}},
		{S32LE, -1, []byte{0x00, 0x00, 0x00, 0x80}},
	}
	for _, tt := range tests {
		if got := Encode(nil, []float32{tt.in}, tt.e); !bytes.Equal(got, tt.want) {
			t.Errorf("Encode(%v, %s) = % x, want % x", tt.in, tt.e, got, tt.want)
		}
	}
}

func TestDecodeRejectsPartialSample(t *testing.T) {
	if _, err := Decode(nil, []byte{1, 2, 3}, S16LE); err == nil {
		t.Fatal("Decode of 3 bytes as S16_LE: got nil error")
	}
}

func TestParseEncoding(t *testing.T) {
	for in, want := range map[string]Encoding{"S16_LE": S16LE, "s32le": S32LE, "FLOAT_LE": F32LE} {
		if got, err := ParseEncoding(in); err != nil || got != want {
			t.Errorf("ParseEncoding(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseEncoding("U8"); err == nil || !strings.Contains(err.Error(), `"U8"`) {
		t.Errorf("ParseEncoding(U8) error = %v, want one naming the value", err)
	}
}

func TestMix(t *testing.T) {
	stereo := Buffer{Rate: 8000, Channels: 2, Samples: []float32{1, 0, 0.5, 0.5, -1, 1}}
	mono := Mix(stereo, 1)
	if got, want := mono.Samples, []float32{0.5, 0.5, 0}; !equal(got, want) {
		t.Errorf("Mix stereo→mono = %v, want %v", got, want)
	}
	up := Mix(mono, 2)
	if got, want := up.Samples, []float32{0.5, 0.5, 0.5, 0.5, 0, 0}; !equal(got, want) {
		t.Errorf("Mix mono→stereo = %v, want %v", got, want)
	}
}

func sine(rate, channels int, hz float64, d time.Duration) Buffer {
	n := FramesIn(d, rate)
	b := Buffer{Rate: rate, Channels: channels, Samples: make([]float32, n*channels)}
	for i := range n {
		v := float32(0.5 * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
		for c := range channels {
			b.Samples[i*channels+c] = v
		}
	}
	return b
}

// rms of the frames of channel 0 between from and to.
func rms(b Buffer, from, to int) float64 {
	var s float64
	for i := from; i < to; i++ {
		v := float64(b.Samples[i*b.Channels])
		s += v * v
	}
	return math.Sqrt(s / float64(to-from))
}

func TestResampleLengths(t *testing.T) {
	for _, tt := range []struct{ from, to, frames, want int }{
		{48000, 16000, 48000, 16000},
		{48000, 16000, 4, 2},
		{22050, 48000, 22050, 48000},
		{44100, 16000, 441, 160},
		{16000, 16000, 100, 100},
		{16000, 44101, 1000, 2757}, // no small common period: taps computed on the fly
	} {
		b := Buffer{Rate: tt.from, Channels: 1, Samples: make([]float32, tt.frames)}
		if got := Resample(b, tt.to).Frames(); got != tt.want {
			t.Errorf("Resample %d frames %d→%d Hz: got %d frames, want %d", tt.frames, tt.from, tt.to, got, tt.want)
		}
	}
}

func TestResampleKeepsToneAndRemovesAlias(t *testing.T) {
	// A 1 kHz tone passes 48→16 kHz with its level; a 10 kHz tone, above the
	// new 8 kHz Nyquist frequency, must not fold back as a 6 kHz alias.
	pass := Resample(sine(48000, 1, 1000, time.Second), 16000)
	if got := rms(pass, 1000, 15000); math.Abs(got-0.5/math.Sqrt2) > 0.01 {
		t.Errorf("1 kHz tone RMS after 48→16 kHz = %.4f, want %.4f", got, 0.5/math.Sqrt2)
	}
	// And it is the same tone, sample by sample.
	for i := 1000; i < 15000; i += 997 {
		want := 0.5 * math.Sin(2*math.Pi*1000*float64(i)/16000)
		if d := math.Abs(float64(pass.Samples[i]) - want); d > 0.01 {
			t.Fatalf("frame %d: got %.4f want %.4f", i, pass.Samples[i], want)
		}
	}
	alias := Resample(sine(48000, 1, 10000, time.Second), 16000)
	if got := rms(alias, 1000, 15000); got > 0.5/math.Sqrt2*0.003 { // below -50 dB
		t.Errorf("10 kHz tone after 48→16 kHz has RMS %.5f, want it filtered out (< -50 dB)", got)
	}
}

func TestResamplerStreamingMatchesWhole(t *testing.T) {
	in := sine(44100, 2, 440, 300*time.Millisecond)
	whole := Resample(in, 16000)
	r := NewResampler(44100, 16000, 2)
	var got []float32
	for i := 0; i < len(in.Samples); {
		n := min(2*(37+i%101), len(in.Samples)-i) // odd-sized chunks of whole frames
		got = append(got, r.Process(in.Samples[i:i+n])...)
		i += n
	}
	got = append(got, r.Flush()...)
	if len(got) != len(whole.Samples) {
		t.Fatalf("streamed %d samples, whole %d", len(got), len(whole.Samples))
	}
	for i := range got {
		if math.Abs(float64(got[i]-whole.Samples[i])) > 1e-6 {
			t.Fatalf("sample %d: streamed %v, whole %v", i, got[i], whole.Samples[i])
		}
	}
}

func TestConverterStreamsLikeToSpeech(t *testing.T) {
	in := sine(48000, 2, 300, 500*time.Millisecond)
	whole := ToSpeech(in)
	c := NewConverter(Format{Rate: 48000, Channels: 2, Encoding: S32LE}, SpeechRate, SpeechChannels)
	var got []float32
	for i := 0; i < len(in.Samples); i += 2 * 960 { // 20 ms periods
		got = append(got, c.Process(in.Samples[i:min(i+2*960, len(in.Samples))])...)
	}
	// The streaming output lags by the filter's half-width; what it has
	// produced matches the whole conversion.
	if len(got) < len(whole.Samples)-64 || len(got) > len(whole.Samples) {
		t.Fatalf("streamed %d samples, whole %d", len(got), len(whole.Samples))
	}
	for i := range got {
		if math.Abs(float64(got[i]-whole.Samples[i])) > 1e-6 {
			t.Fatalf("sample %d: streamed %v, whole %v", i, got[i], whole.Samples[i])
		}
	}
	up := NewConverter(Format{Rate: 16000, Channels: 1, Encoding: S16LE}, 48000, 2)
	if out := up.Process(make([]float32, 1600)); len(out)%2 != 0 || len(out) < 2*4000 {
		t.Errorf("mono 16 kHz to stereo 48 kHz: %d samples from 100 ms", len(out))
	}
}

func TestConvertFromMEMSMicFormat(t *testing.T) {
	// An INMP441 on the googlevoicehat overlay gives 48 kHz stereo S32_LE with
	// the voice on one channel; the pipeline wants 16 kHz mono floats.
	src := sine(48000, 2, 500, 200*time.Millisecond)
	for i := 1; i < len(src.Samples); i += 2 {
		src.Samples[i] = 0 // right channel silent
	}
	raw := Encode(nil, src.Samples, S32LE)
	samples, err := Decode(nil, raw, S32LE)
	if err != nil {
		t.Fatal(err)
	}
	out := ToSpeech(Buffer{Rate: 48000, Channels: 2, Samples: samples})
	if out.Rate != 16000 || out.Channels != 1 || out.Frames() != 3200 {
		t.Fatalf("got %d Hz %dch %d frames, want 16000 Hz 1ch 3200 frames", out.Rate, out.Channels, out.Frames())
	}
	if got, want := rms(out, 200, 3000), 0.25/math.Sqrt2; math.Abs(got-want) > 0.005 {
		t.Errorf("RMS after conversion %.4f, want %.4f (mono average of one live channel)", got, want)
	}
}

func TestWAVRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.wav")
	in := sine(22050, 2, 300, 100*time.Millisecond)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteWAV(f, in, 16); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, _ = os.Open(path)
	defer f.Close()
	out, err := ReadWAV(f)
	if err != nil {
		t.Fatal(err)
	}
	if out.Rate != 22050 || out.Channels != 2 || out.Frames() != in.Frames() {
		t.Fatalf("read back %d Hz %dch %d frames, want 22050 Hz 2ch %d frames", out.Rate, out.Channels, out.Frames(), in.Frames())
	}
	for i := range in.Samples {
		if math.Abs(float64(out.Samples[i]-in.Samples[i])) > 1.0/16000 {
			t.Fatalf("sample %d: got %v want %v", i, out.Samples[i], in.Samples[i])
		}
	}
}

func TestReadWAVRejectsCorrupt(t *testing.T) {
	var good bytes.Buffer
	ws := &memfile.File{}
	if err := WriteWAV(ws, sine(16000, 1, 300, 10*time.Millisecond), 16); err != nil {
		t.Fatal(err)
	}
	good.Write(ws.Bytes())
	for name, data := range map[string][]byte{
		"empty":        nil,
		"text":         []byte("this is not audio at all, just words"),
		"header only":  good.Bytes()[:20],
		"no samples":   good.Bytes()[:44],
		"wrong format": withFormatTag(good.Bytes(), 3), // float, but 16-bit
		"A-law":        withFormatTag(good.Bytes(), 6),
	} {
		if _, err := ReadWAV(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: ReadWAV accepted a corrupt file", name)
		} else if !strings.HasPrefix(err.Error(), "pcm: read wav:") {
			t.Errorf("%s: error %q does not say which operation failed", name, err)
		}
	}
}

// otherWAV is a WAV file as other programs write one. tag is the format
// tag; an extensible header (tag 0xFFFE) names its samples by sub, the
// SubFormat GUID's format tag. extra chunks come between the format and
// the data, as ffmpeg's LIST. streamed leaves the sizes 0xFFFFFFFF, as a
// program writing to a pipe must (ffmpeg ... -f wav pipe:1).
func otherWAV(tag, sub uint16, bits, channels, rate int, extra, data []byte, streamed bool) []byte {
	le := binary.LittleEndian
	block := channels * bits / 8
	f := le.AppendUint16(nil, tag)
	f = le.AppendUint16(f, uint16(channels))
	f = le.AppendUint32(f, uint32(rate))
	f = le.AppendUint32(f, uint32(rate*block))
	f = le.AppendUint16(f, uint16(block))
	f = le.AppendUint16(f, uint16(bits))
	switch {
	case tag == 0xFFFE:
		f = le.AppendUint16(f, 22) // extension size
		f = le.AppendUint16(f, uint16(bits))
		f = le.AppendUint32(f, 1<<channels-1) // speaker positions
		// The SubFormat GUID: a format tag, then KSDATAFORMAT's tail.
		f = le.AppendUint32(f, uint32(sub))
		f = append(f, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71)
	case tag != 1:
		f = le.AppendUint16(f, 0) // no extension
	}
	size := func(n int) uint32 {
		if streamed {
			return 0xFFFFFFFF
		}
		return uint32(n)
	}
	b := append([]byte("RIFF"), 0, 0, 0, 0)
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, uint32(len(f)))
	b = append(b, f...)
	b = append(b, extra...)
	b = append(b, "data"...)
	b = le.AppendUint32(b, size(len(data)))
	b = append(b, data...)
	le.PutUint32(b[4:], size(len(b)-8))
	return b
}

// TestReadWAVOtherWriters: the headers sox and ffmpeg write for float and
// for more than 16 bits are read as the samples they hold; a 32-bit float
// file read as integers would be full-scale noise.
func TestReadWAVOtherWriters(t *testing.T) {
	const rate = 16000
	tone := sine(rate, 1, 440, 100*time.Millisecond)
	for i := range tone.Samples {
		tone.Samples[i] *= 0.5
	}
	stereo := sine(rate, 2, 440, 100*time.Millisecond)
	for _, tt := range []struct {
		name string
		file []byte
		want Buffer
		tol  float64
	}{
		{"float, extensible (sox, ffmpeg)", otherWAV(0xFFFE, 3, 32, 1, rate, nil, Encode(nil, tone.Samples, F32LE), false), tone, 1e-7},
		{"float, plain", otherWAV(3, 0, 32, 1, rate, nil, Encode(nil, tone.Samples, F32LE), false), tone, 1e-7},
		{"32-bit integer, extensible", otherWAV(0xFFFE, 1, 32, 2, rate, nil, Encode(nil, stereo.Samples, S32LE), false), stereo, 1e-6},
		{"16-bit integer, extensible", otherWAV(0xFFFE, 1, 16, 1, rate, nil, Encode(nil, tone.Samples, S16LE), false), tone, 1.0 / 16000},
	} {
		got, err := ReadWAV(bytes.NewReader(tt.file))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got.Rate != tt.want.Rate || got.Channels != tt.want.Channels || len(got.Samples) != len(tt.want.Samples) {
			t.Errorf("%s: %d Hz %dch %d samples, want %d Hz %dch %d", tt.name, got.Rate, got.Channels, len(got.Samples), tt.want.Rate, tt.want.Channels, len(tt.want.Samples))
			continue
		}
		for i := range got.Samples {
			if d := math.Abs(float64(got.Samples[i] - tt.want.Samples[i])); d > tt.tol {
				t.Errorf("%s: sample %d is %v, want %v", tt.name, i, got.Samples[i], tt.want.Samples[i])
				break
			}
		}
	}
}

// TestReadWAVRefusesOtherSamples: samples ReadWAV cannot decode are an
// error that says what they are, never noise.
func TestReadWAVRefusesOtherSamples(t *testing.T) {
	data := make([]byte, 3200)
	for _, tt := range []struct {
		name string
		file []byte
		want string
	}{
		{"A-law, extensible", otherWAV(0xFFFE, 6, 8, 1, 8000, nil, data, false), "sample format 00000006-0000-0010-8000-00aa00389b71 is neither integer PCM nor IEEE float"},
		{"A-law", otherWAV(6, 0, 8, 1, 8000, nil, data, false), "audio format 6 is neither integer PCM nor IEEE float"},
		{"64-bit float", otherWAV(0xFFFE, 3, 64, 1, 8000, nil, data, false), "64-bit float samples"},
	} {
		if _, err := ReadWAV(bytes.NewReader(tt.file)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestReadWAVStreamed: a WAV written through a pipe says its sizes are
// unknown; it is read to the end of the file, as players do.
func TestReadWAVStreamed(t *testing.T) {
	const rate = 16000
	tone := sine(rate, 1, 440, time.Second)
	pcm16 := Encode(nil, tone.Samples, S16LE)
	list := append([]byte("LIST"), 26, 0, 0, 0) // ffmpeg's note of itself
	list = append(list, "INFOISFT\x0e\x00\x00\x00Lavf61.7.100\x00\x00"...)
	zero := otherWAV(1, 0, 16, 1, rate, nil, pcm16, false) // sizes left at zero
	copy(zero[4:], []byte{0, 0, 0, 0})
	copy(zero[40:], []byte{0, 0, 0, 0})
	for _, tt := range []struct {
		name   string
		file   []byte
		frames int
	}{
		{"sizes unknown", otherWAV(1, 0, 16, 1, rate, nil, pcm16, true), rate},
		{"sizes unknown, after a LIST chunk", otherWAV(1, 0, 16, 1, rate, list, pcm16, true), rate},
		{"sizes unknown, cut in a sample", otherWAV(1, 0, 16, 1, rate, nil, pcm16[:len(pcm16)-1], true), rate - 1},
		{"sizes zero", zero, rate},
		{"float, sizes unknown", otherWAV(0xFFFE, 3, 32, 1, rate, nil, Encode(nil, tone.Samples, F32LE), true), rate},
	} {
		got, err := ReadWAV(bytes.NewReader(tt.file))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got.Frames() != tt.frames || rms(got, 0, got.Frames()) < 0.3 {
			t.Errorf("%s: %d frames at RMS %.3f, want %d of the tone at RMS 0.35", tt.name, got.Frames(), rms(got, 0, got.Frames()), tt.frames)
		}
	}
}

func TestReadSpeechClip(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "testdata", "speech", "jfk.wav")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("speech clip not available (%v); it lives in ../shared beside the repository", err)
	}
	defer f.Close()
	b, err := ReadWAV(f)
	if err != nil {
		t.Fatal(err)
	}
	if b.Rate != 16000 || b.Channels != 1 {
		t.Fatalf("jfk.wav: %d Hz %dch, want 16000 Hz mono", b.Rate, b.Channels)
	}
	if d := b.Duration(); d < 10900*time.Millisecond || d > 11100*time.Millisecond {
		t.Errorf("jfk.wav lasts %v, want about 11 s", d)
	}
	if r := rms(b, 0, b.Frames()); r < 0.01 {
		t.Errorf("jfk.wav RMS %.4f: decoded as silence", r)
	}
}

func withFormatTag(b []byte, tag byte) []byte {
	c := append([]byte(nil), b...)
	c[20] = tag
	return c
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}
