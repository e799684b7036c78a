//go:build whisper && cgo

package whisper

/*
#cgo LDFLAGS: -lwhisper -lggml -lggml-cpu -lggml-base -lstdc++ -lm -fopenmp
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <whisper.h>

// hark_flags says which transcription is running and which one was
// cancelled; the Go side writes them, whisper.cpp's threads read them.
typedef struct { int64_t running, cancelled; } hark_flags;

// hark_abort is whisper.cpp's abort callback: stop when the running
// transcription is the cancelled one.
static bool hark_abort(void *p) {
	hark_flags *f = p;
	return __atomic_load_n(&f->cancelled, __ATOMIC_SEQ_CST) == __atomic_load_n(&f->running, __ATOMIC_SEQ_CST);
}

// hark_begin stops before the encoder when it is already cancelled.
static bool hark_begin(struct whisper_context *ctx, struct whisper_state *state, void *p) {
	return !hark_abort(p);
}

static void hark_quiet(enum ggml_log_level level, const char *text, void *data) {}

static void hark_silence(void) { whisper_log_set(hark_quiet, NULL); }

static struct whisper_vad_context *hark_vad_init(const char *path, int threads) {
	struct whisper_vad_context_params p = whisper_vad_default_context_params();
	p.n_threads = threads;
	p.use_gpu = false;
	return whisper_vad_init_from_file_with_params(path, p);
}

static struct whisper_full_params hark_params(enum whisper_sampling_strategy strategy, hark_flags *flag) {
	struct whisper_full_params p = whisper_full_default_params(strategy);
	p.abort_callback = hark_abort;
	p.abort_callback_user_data = flag;
	p.encoder_begin_callback = hark_begin;
	p.encoder_begin_callback_user_data = flag;
	p.print_progress = false;
	p.print_realtime = false;
	p.print_timestamps = false;
	p.print_special = false;
	return p;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Engine is a loaded model and the goroutine that owns it.
type Engine struct {
	o            Options
	log          *slog.Logger
	ctx          *C.struct_whisper_context
	vad          *C.struct_whisper_vad_context // nil without a VAD model
	flags        *C.hark_flags                 // C memory: whisper.cpp reads it from its threads
	lastID       atomic.Int64                  // the last request's ID
	aborted      atomic.Int64                  // transcriptions stopped by a cancel
	reqs         chan request
	done         chan struct{}
	multilingual bool
	loaded       time.Duration
	closeOnce    sync.Once
}

type request struct {
	id      int64
	samples []float32
	reply   chan response
}

type response struct {
	r   Result
	err error
}

// Built reports whether whisper.cpp is linked in.
func Built() bool { return true }

// whisper.cpp logs to stderr; Hark reports what matters itself.
func init() { C.hark_silence() }

// Version is whisper.cpp's version and the CPU features it was built with.
func Version() string {
	return describe(C.GoString(C.whisper_version()), C.GoString(C.whisper_print_system_info()))
}

// Features are the CPU features whisper.cpp was built with (NEON, AVX2,
// OPENMP...); none means a generic build, many times slower.
func Features() []string { return features(C.GoString(C.whisper_print_system_info())) }

// New checks and loads the model. A missing file, a file that is not a
// whisper.cpp model, and a truncated or corrupt one are errors that say so,
// and so is a language whisper.cpp does not know (see CheckLanguage).
func New(o Options) (*Engine, error) {
	lang, err := CheckLanguage(o.Language)
	if err != nil {
		return nil, err
	}
	if lang != "auto" && langID(lang) < 0 { // CheckLanguage's list is behind this whisper.cpp
		return nil, fmt.Errorf("whisper: language %q is not one this whisper.cpp (%s) knows", lang, C.GoString(C.whisper_version()))
	}
	o.Language = lang
	if err := CheckModel(o.Model); err != nil {
		return nil, err
	}
	if o.Probe != nil {
		if err := o.Probe(context.Background(), o.Model); err != nil {
			return nil, err
		}
	}
	if o.VADModel != "" {
		if err := CheckVADModel(o.VADModel); err != nil {
			return nil, err
		}
	}
	if o.Threads <= 0 {
		o.Threads = runtime.NumCPU()
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{o: o, log: o.Log.With("pkg", "whisper"), reqs: make(chan request), done: make(chan struct{})}
	e.flags = (*C.hark_flags)(C.calloc(1, C.size_t(unsafe.Sizeof(C.hark_flags{}))))
	loaded := make(chan error, 1)
	go e.run(loaded)
	if err := <-loaded; err != nil {
		C.free(unsafe.Pointer(e.flags))
		return nil, err
	}
	return e, nil
}

// run owns the whisper.cpp context: it loads the model, then transcribes
// one request at a time, on one locked OS thread.
func (e *Engine) run(loaded chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(e.done)
	start := time.Now()
	path := C.CString(e.o.Model)
	cp := C.whisper_context_default_params()
	cp.use_gpu = false
	cp.flash_attn = C.bool(e.o.FlashAttention)
	e.ctx = C.whisper_init_from_file_with_params(path, cp)
	C.free(unsafe.Pointer(path))
	if e.ctx == nil {
		loaded <- fmt.Errorf("whisper: could not load model %s: truncated, corrupt or of an unsupported version", e.o.Model)
		return
	}
	defer C.whisper_free(e.ctx)
	if e.o.VADModel != "" {
		vpath := C.CString(e.o.VADModel)
		e.vad = C.hark_vad_init(vpath, C.int(e.o.Threads))
		C.free(unsafe.Pointer(vpath))
		if e.vad == nil {
			loaded <- fmt.Errorf("whisper: could not load VAD model %s: not a Silero VAD model for whisper.cpp", e.o.VADModel)
			return
		}
		defer C.whisper_vad_free(e.vad)
	}
	e.loaded = time.Since(start)
	e.multilingual = C.whisper_is_multilingual(e.ctx) != 0
	e.log.Info("model loaded", "model", e.o.Model, "load_ms", e.loaded.Milliseconds(), "multilingual", e.multilingual, "threads", e.o.Threads)
	loaded <- nil
	for req := range e.reqs {
		atomic.StoreInt64((*int64)(unsafe.Pointer(&e.flags.running)), req.id)
		r, err := e.process(req.samples)
		if errors.Is(err, context.Canceled) {
			e.aborted.Add(1)
		}
		req.reply <- response{r, err} // buffered: the caller may be gone
	}
}

// langID is whisper.cpp's id for a language code, -1 for one it does not
// know.
func langID(code string) int {
	c := C.CString(code)
	defer C.free(unsafe.Pointer(c))
	return int(C.whisper_lang_id(c))
}

// langMaxID is whisper.cpp's largest language id.
func langMaxID() int { return int(C.whisper_lang_max_id()) }

// langCode is the code of whisper.cpp's language id, "" for none.
func langCode(id int) string {
	if s := C.whisper_lang_str(C.int(id)); s != nil {
		return C.GoString(s)
	}
	return ""
}

// LoadTime is how long loading the model took.
func (e *Engine) LoadTime() time.Duration { return e.loaded }

// Multilingual reports whether the model detects and transcribes languages
// other than English.
func (e *Engine) Multilingual() bool { return e.multilingual }

// Close frees the model. A transcription under way finishes first.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		close(e.reqs)
		<-e.done
		C.free(unsafe.Pointer(e.flags))
	})
	return nil
}

// Transcribe returns the words of u's audio, or ErrNoSpeech when the
// guards judge it silence or noise.
func (e *Engine) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	audio := u.Audio
	if audio.Rate != pcm.SpeechRate || audio.Channels != pcm.SpeechChannels {
		audio = pcm.ToSpeech(audio)
	}
	if len(audio.Samples) == 0 {
		return voice.Transcript{}, voice.ErrNoSpeech
	}
	r, err := e.Run(ctx, audio.Samples)
	if err != nil {
		return voice.Transcript{}, err
	}
	text, err := e.o.Filter(r, voice.ErrNoSpeech)
	e.log.Debug("transcribed", "encode_ms", r.Timings.Encode.Milliseconds(), "decode_ms", r.Timings.Decode.Milliseconds(), "language", r.Language, "no_speech", err != nil)
	return voice.Transcript{Text: text, Language: r.Language}, err
}

// Run transcribes 16 kHz mono samples without the guards. When ctx is done
// Run returns ctx.Err() at once and whisper.cpp is told to stop. It checks
// before and after the encoder pass and between decoder steps, so it is
// still busy for at most one encoder pass (short, with the audio context
// sized to the utterance); a transcription asked for meanwhile waits for it.
func (e *Engine) Run(ctx context.Context, samples []float32) (Result, error) {
	req := request{id: e.lastID.Add(1), samples: samples, reply: make(chan response, 1)}
	select {
	case e.reqs <- req:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	select {
	case res := <-req.reply:
		return res.r, res.err
	case <-ctx.Done():
		atomic.StoreInt64((*int64)(unsafe.Pointer(&e.flags.cancelled)), req.id)
		return Result{}, ctx.Err()
	}
}

// minSamples pads very short audio: whisper.cpp wants at least a second.
const minSamples = 16000 + 1600

func (e *Engine) process(samples []float32) (Result, error) {
	if len(samples) == 0 {
		return Result{}, nil // nothing to hear
	}
	start := time.Now()
	if e.vad != nil {
		var err error
		if samples, err = e.trim(samples); err != nil {
			return Result{}, err
		}
		if len(samples) == 0 { // no speech at all: no encoder pass
			return Result{Timings: Timings{Total: time.Since(start)}}, nil
		}
	}
	speech := samplesDuration(len(samples))
	if len(samples) < minSamples {
		samples = append(samples[:len(samples):len(samples)], make([]float32, minSamples-len(samples))...)
	}
	strategy := uint32(C.WHISPER_SAMPLING_GREEDY)
	if e.o.BeamSize > 1 {
		strategy = uint32(C.WHISPER_SAMPLING_BEAM_SEARCH)
	}
	p := C.hark_params(C.enum_whisper_sampling_strategy(strategy), e.flags)
	p.n_threads = C.int(e.o.Threads)
	p.no_context = true
	p.no_timestamps = true
	p.suppress_blank = true
	p.suppress_nst = true
	p.temperature_inc = 0 // no re-decoding at higher temperatures: steady latency; the guards catch loops
	if e.o.BeamSize > 1 {
		p.beam_search.beam_size = C.int(e.o.BeamSize)
	}
	lang := e.o.Language // checked by New
	if !e.multilingual {
		lang = "en"
	}
	clang := C.CString(lang)
	defer C.free(unsafe.Pointer(clang))
	p.language = clang
	if e.o.Prompt != "" {
		prompt := C.CString(e.o.Prompt)
		defer C.free(unsafe.Pointer(prompt))
		p.initial_prompt = prompt
	}
	audioCtx := 1500
	if !e.o.FullWindow {
		audioCtx = AudioContext(len(samples))
		p.audio_ctx = C.int(audioCtx)
	}
	C.whisper_reset_timings(e.ctx)
	rc := C.whisper_full(e.ctx, p, (*C.float)(unsafe.Pointer(&samples[0])), C.int(len(samples)))
	total := time.Since(start)
	if atomic.LoadInt64((*int64)(unsafe.Pointer(&e.flags.cancelled))) == atomic.LoadInt64((*int64)(unsafe.Pointer(&e.flags.running))) {
		return Result{}, context.Canceled
	}
	if rc != 0 {
		return Result{}, fmt.Errorf("whisper: transcription failed (whisper_full returned %d)", int(rc))
	}
	r := Result{AudioContext: audioCtx, Speech: speech}
	if t := C.whisper_get_timings(e.ctx); t != nil {
		r.Timings = Timings{Encode: ms(float64(t.encode_ms)), Decode: ms(float64(t.decode_ms + t.batchd_ms + t.prompt_ms)), Total: total}
	}
	if id := C.whisper_full_lang_id(e.ctx); id >= 0 {
		r.Language = C.GoString(C.whisper_lang_str(id))
	}
	eot := C.whisper_token_eot(e.ctx)
	for i := range int(C.whisper_full_n_segments(e.ctx)) {
		s := Segment{
			Text:     C.GoString(C.whisper_full_get_segment_text(e.ctx, C.int(i))),
			NoSpeech: float32(C.whisper_full_get_segment_no_speech_prob(e.ctx, C.int(i))),
		}
		var sum float32
		n := 0
		for j := range int(C.whisper_full_n_tokens(e.ctx, C.int(i))) {
			if C.whisper_full_get_token_id(e.ctx, C.int(i), C.int(j)) >= eot {
				continue // special tokens say nothing about the words
			}
			sum += float32(C.whisper_full_get_token_p(e.ctx, C.int(i), C.int(j)))
			n++
		}
		if n > 0 {
			s.Confidence = sum / float32(n)
		}
		r.Segments = append(r.Segments, s)
		r.Text += s.Text
	}
	return r, nil
}

// trim keeps the speech the VAD model finds, with a tenth of a second of
// silence between pieces, so the encoder (and the audio context sized to
// what is left) spends nothing on silence. No speech gives no samples.
func (e *Engine) trim(samples []float32) ([]float32, error) {
	segs := C.whisper_vad_segments_from_samples(e.vad, C.whisper_vad_default_params(), (*C.float)(unsafe.Pointer(&samples[0])), C.int(len(samples)))
	if segs == nil {
		return nil, errors.New("whisper: voice activity detection failed")
	}
	defer C.whisper_vad_free_segments(segs)
	var out []float32
	for i := range int(C.whisper_vad_segments_n_segments(segs)) {
		// Segment bounds are in hundredths of a second.
		from := centis(float64(C.whisper_vad_segments_get_segment_t0(segs, C.int(i))), len(samples))
		to := centis(float64(C.whisper_vad_segments_get_segment_t1(segs, C.int(i))), len(samples))
		if to <= from {
			continue
		}
		if len(out) > 0 {
			out = append(out, make([]float32, pcm.SpeechRate/10)...)
		}
		out = append(out, samples[from:to]...)
	}
	return out, nil
}

func centis(cs float64, n int) int {
	return min(max(int(cs/100*pcm.SpeechRate+0.5), 0), n)
}

func samplesDuration(n int) time.Duration {
	return time.Duration(n) * time.Second / pcm.SpeechRate
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
