//go:build whisper && cgo

package whisper

/*
#include <stdlib.h>
#include <whisper.h>

static struct whisper_vad_context *hark_vad_open(const char *path, int threads) {
	struct whisper_vad_context_params p = whisper_vad_default_context_params();
	p.n_threads = threads;
	p.use_gpu = false;
	return whisper_vad_init_from_file_with_params(path, p);
}

// hark_vad_frame scores one window, keeping the model's state from the
// windows before it.
static float hark_vad_frame(struct whisper_vad_context *v, const float *samples, int n) {
	if (!whisper_vad_detect_speech_no_reset(v, samples, n) || whisper_vad_n_probs(v) < 1) return -1;
	return whisper_vad_probs(v)[0];
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// VAD is the Silero voice activity model run through whisper.cpp, one
// window at a time with its state carried over: the pipeline's endpoint
// Detector when whisper.cpp is built in. Not safe for concurrent use.
type VAD struct {
	v *C.struct_whisper_vad_context
}

// sileroWindow is the model's window: 512 samples, 32 ms at 16 kHz.
const sileroWindow = 512

// NewVAD loads a Silero VAD model (ggml-silero-v6.2.0.bin).
func NewVAD(path string, threads int) (*VAD, error) {
	if err := CheckVADModel(path); err != nil {
		return nil, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	v := C.hark_vad_open(cpath, C.int(max(threads, 1)))
	if v == nil {
		return nil, fmt.Errorf("whisper: could not load VAD model %s", path)
	}
	// whisper.cpp allocates the model's LSTM state without clearing it (its
	// own detect_speech clears it first; the window-by-window call does
	// not): a first stream would start from whatever the memory held.
	C.whisper_vad_reset_state(v)
	return &VAD{v: v}, nil
}

// FrameSize is the model's window.
func (d *VAD) FrameSize() int { return sileroWindow }

// Speech is the model's probability that frame (FrameSize samples) is
// speech; 0 when the model fails, or has been closed (by this goroutine:
// see VAD).
func (d *VAD) Speech(frame []float32) float32 {
	if d.v == nil || len(frame) < sileroWindow {
		return 0
	}
	p := C.hark_vad_frame(d.v, (*C.float)(unsafe.Pointer(&frame[0])), C.int(sileroWindow))
	return max(float32(p), 0)
}

// Reset starts a new stream.
func (d *VAD) Reset() {
	if d.v != nil {
		C.whisper_vad_reset_state(d.v)
	}
}

// Close frees the model.
func (d *VAD) Close() error {
	if d.v != nil {
		C.whisper_vad_free(d.v)
		d.v = nil
	}
	return nil
}
