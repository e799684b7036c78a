package pcm

import (
	"bytes"
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
		"wrong format": withFormatTag(good.Bytes(), 3),
	} {
		if _, err := ReadWAV(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: ReadWAV accepted a corrupt file", name)
		} else if !strings.HasPrefix(err.Error(), "pcm: read wav:") {
			t.Errorf("%s: error %q does not say which operation failed", name, err)
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
