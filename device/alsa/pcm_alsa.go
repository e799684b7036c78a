//go:build alsa && cgo && linux

package alsa

/*
#cgo LDFLAGS: -lasound
#include <alsa/asoundlib.h>
#include <errno.h>
#include <poll.h>
#include <unistd.h>

// hark_open opens and configures a PCM for interleaved transfers. It tries
// the wanted sample format first, then the others Hark can convert, and
// takes the nearest rate, channel count, period and buffer the device
// allows; the granted values come back through the pointers.
static int hark_open(snd_pcm_t **out, const char *name, int capture, snd_pcm_format_t *fmt,
		unsigned int *rate, unsigned int *channels,
		snd_pcm_uframes_t *period, snd_pcm_uframes_t *buffer) {
	snd_pcm_t *pcm;
	int err = snd_pcm_open(&pcm, name, capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
	if (err < 0) return err;
	snd_pcm_hw_params_t *hw;
	snd_pcm_hw_params_alloca(&hw);
	snd_pcm_format_t order[4] = {*fmt, SND_PCM_FORMAT_S32_LE, SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_FLOAT_LE};
	int i;
	if ((err = snd_pcm_hw_params_any(pcm, hw)) < 0) goto fail;
	if ((err = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0) goto fail;
	for (i = 0; i < 4; i++) {
		if (snd_pcm_hw_params_test_format(pcm, hw, order[i]) == 0) break;
	}
	if (i == 4) { err = -EINVAL; goto fail; }
	*fmt = order[i];
	if ((err = snd_pcm_hw_params_set_format(pcm, hw, *fmt)) < 0) goto fail;
	if ((err = snd_pcm_hw_params_set_channels_near(pcm, hw, channels)) < 0) goto fail;
	if ((err = snd_pcm_hw_params_set_rate_near(pcm, hw, rate, 0)) < 0) goto fail;
	if ((err = snd_pcm_hw_params_set_period_size_near(pcm, hw, period, 0)) < 0) goto fail;
	if ((err = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, buffer)) < 0) goto fail;
	if ((err = snd_pcm_hw_params(pcm, hw)) < 0) goto fail;
	snd_pcm_hw_params_get_period_size(hw, period, 0);
	snd_pcm_hw_params_get_buffer_size(hw, buffer);

	snd_pcm_sw_params_t *sw;
	snd_pcm_sw_params_alloca(&sw);
	if ((err = snd_pcm_sw_params_current(pcm, sw)) < 0) goto fail;
	// Playback starts as soon as one period is queued; capture at once.
	if ((err = snd_pcm_sw_params_set_start_threshold(pcm, sw, capture ? 1 : *period)) < 0) goto fail;
	if ((err = snd_pcm_sw_params_set_avail_min(pcm, sw, *period)) < 0) goto fail;
	if ((err = snd_pcm_sw_params(pcm, sw)) < 0) goto fail;
	if ((err = snd_pcm_prepare(pcm)) < 0) goto fail;
	*out = pcm;
	return 0;
fail:
	snd_pcm_close(pcm);
	return err;
}

// hark_wait waits until the PCM can transfer (1), the wake-up pipe is
// written (0), or timeout_ms passes (-ETIMEDOUT); a device error is
// -EPIPE, to be recovered.
static int hark_wait(snd_pcm_t *pcm, int wake, int timeout_ms) {
	int n = snd_pcm_poll_descriptors_count(pcm);
	if (n < 0) return n;
	if (n > 15) n = 15;
	struct pollfd fds[16];
	if ((n = snd_pcm_poll_descriptors(pcm, fds, n)) < 0) return n;
	fds[n].fd = wake;
	fds[n].events = POLLIN;
	fds[n].revents = 0;
	int r = poll(fds, n + 1, timeout_ms);
	if (r < 0) return errno == EINTR ? 2 : -errno;
	if (r == 0) return -ETIMEDOUT;
	if (fds[n].revents) {
		char b[16];
		while (read(wake, b, sizeof b) > 0) {}
		return 0;
	}
	unsigned short revents = 0;
	int err = snd_pcm_poll_descriptors_revents(pcm, fds, n, &revents);
	if (err < 0) return err;
	if (revents & POLLERR) return -EPIPE;
	return 1;
}

// hark_quiet keeps alsa-lib from printing to stderr: Hark reports the
// errors it gets back, with the device's name.
static void hark_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
static void hark_quiet(void) { snd_lib_error_set_handler(hark_quiet_handler); }

// hark_config_has loads an ALSA configuration file on its own and reports
// whether it defines key (1) or not (0); a file alsa-lib cannot parse is a
// negative error.
static int hark_config_has(const char *path, const char *key) {
	snd_config_t *top, *node;
	snd_input_t *in;
	int err = snd_config_top(&top);
	if (err < 0) return err;
	if ((err = snd_input_stdio_open(&in, path, "r")) < 0) { snd_config_delete(top); return err; }
	err = snd_config_load(top, in);
	snd_input_close(in);
	if (err >= 0) err = snd_config_search(top, key, &node) == 0;
	snd_config_delete(top);
	return err;
}

static int hark_is_draining(snd_pcm_t *pcm) { return snd_pcm_state(pcm) == SND_PCM_STATE_DRAINING; }
*/
import "C"

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/harkbox/hark/pipeline/pcm"
)

// Built reports whether alsa-lib is linked in.
func Built() bool { return true }

func init() { C.hark_quiet() }

// PCM is an open ALSA device.
type PCM struct {
	h      *C.snd_pcm_t
	stream Stream
	cfg    Config
	format pcm.Format
	period int // frames
	buffer int // frames
	wake   [2]int
	raw    []byte
	xruns  atomic.Int64
	// An overrun or underrun is logged once per xrunEvery; a storm is
	// counted, not logged line by line (the PCM is used from one
	// goroutine at a time).
	xrunLogged time.Time
	xrunHeld   int
}

// xrunEvery is how often a storm of overruns or underruns is logged.
const xrunEvery = 10 * time.Second

// Open opens a device for capture or playback.
func Open(stream Stream, cfg Config) (*PCM, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Format.Validate(); err != nil {
		return nil, fmt.Errorf("alsa: %s %s: %w", stream, cfg.Device, err)
	}
	name := C.CString(cfg.Device)
	defer C.free(unsafe.Pointer(name))
	fmtCode := alsaFormat(cfg.Format.Encoding)
	rate, channels := C.uint(cfg.Format.Rate), C.uint(cfg.Format.Channels)
	period := C.snd_pcm_uframes_t(pcm.FramesIn(cfg.Period, cfg.Format.Rate))
	buffer := period * C.snd_pcm_uframes_t(cfg.Periods)
	var h *C.snd_pcm_t
	capture := C.int(0)
	if stream == Capture {
		capture = 1
	}
	if rc := C.hark_open(&h, name, capture, &fmtCode, &rate, &channels, &period, &buffer); rc < 0 {
		return nil, fmt.Errorf("alsa: open %s %q: %s", stream, cfg.Device, strerror(rc))
	}
	p := &PCM{h: h, stream: stream, cfg: cfg, period: int(period), buffer: int(buffer),
		format: pcm.Format{Rate: int(rate), Channels: int(channels), Encoding: encoding(fmtCode)}}
	if err := syscall.Pipe2(p.wake[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		C.snd_pcm_close(h)
		return nil, fmt.Errorf("alsa: open %s %q: wake-up pipe: %w", stream, cfg.Device, err)
	}
	p.raw = make([]byte, p.period*p.format.Channels*p.format.Encoding.Size())
	if stream == Capture {
		if rc := C.snd_pcm_start(h); rc < 0 {
			p.Close()
			return nil, fmt.Errorf("alsa: start capture %q: %s", cfg.Device, strerror(C.int(rc)))
		}
	}
	cfg.Log.Debug("device open", "pkg", "alsa", "stream", stream.String(), "device", cfg.Device,
		"format", p.format.String(), "period", p.period, "buffer", p.buffer)
	return p, nil
}

// Format is what the device granted.
func (p *PCM) Format() pcm.Format { return p.format }

// Period is the device's transfer size in frames.
func (p *PCM) Period() int { return p.period }

// Xruns counts the overruns (capture) or underruns (playback) recovered.
func (p *PCM) Xruns() int { return int(p.xruns.Load()) }

// wakeUp releases a Read or Write waiting for the device.
func (p *PCM) wakeUp() { syscall.Write(p.wake[1], []byte{0}) }

// Read captures into dst (interleaved samples, whole frames; at most one
// period is read at a time) and returns how many samples it filled. It
// waits for audio, and returns ctx.Err() when ctx is done first. After
// recovering from an overrun it returns at once with no samples, so that
// a storm of overruns never keeps its caller from making progress.
func (p *PCM) Read(ctx context.Context, dst []float32) (int, error) {
	frames := min(len(dst)/p.format.Channels, p.period)
	if frames == 0 {
		return 0, nil
	}
	stop := context.AfterFunc(ctx, p.wakeUp)
	defer stop()
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n := C.snd_pcm_readi(p.h, unsafe.Pointer(&p.raw[0]), C.snd_pcm_uframes_t(frames))
		if n > 0 {
			got, err := pcm.Decode(dst[:0], p.raw[:int(n)*p.format.Channels*p.format.Encoding.Size()], p.format.Encoding)
			return len(got), err
		}
		if n < 0 && n != -C.EAGAIN {
			if err := p.recover(C.int(n)); err != nil {
				return 0, err
			}
			return 0, nil
		}
		if err := p.wait(); err != nil {
			return 0, err
		}
	}
}

// Write plays src (interleaved samples in Format's channels), waiting
// while the device's buffer is full. When ctx is done it drops what is
// queued at once and returns ctx.Err(); the PCM then only closes.
func (p *PCM) Write(ctx context.Context, src []float32) error {
	stop := context.AfterFunc(ctx, p.wakeUp)
	defer stop()
	size := p.format.Channels * p.format.Encoding.Size()
	for len(src) > 0 {
		chunk := min(len(src), p.period*p.format.Channels)
		p.raw = pcm.Encode(p.raw[:0], src[:chunk], p.format.Encoding)
		for off := 0; off < len(p.raw); {
			if err := ctx.Err(); err != nil {
				C.snd_pcm_drop(p.h)
				return err
			}
			n := C.snd_pcm_writei(p.h, unsafe.Pointer(&p.raw[off]), C.snd_pcm_uframes_t((len(p.raw)-off)/size))
			if n > 0 {
				off += int(n) * size
				continue
			}
			if n < 0 && n != -C.EAGAIN {
				if err := p.recover(C.int(n)); err != nil {
					return err
				}
				continue
			}
			if err := p.wait(); err != nil {
				return err
			}
		}
		src = src[chunk:]
	}
	return nil
}

// Drain waits until what was written has been played, at most for
// drainLimit: the audio still queued and a margin. When ctx is done first
// it drops the rest and returns ctx.Err(). A device that has not played
// it out by then (a hung USB DAC, a stuck I2S clock) is dropped too, and
// Drain returns an error that wraps ErrStalled and names the device.
func (p *PCM) Drain(ctx context.Context) error {
	stop := context.AfterFunc(ctx, p.wakeUp)
	defer stop()
	queued := p.buffer // when the device cannot say, all of it
	if avail := C.snd_pcm_avail(p.h); avail >= 0 {
		queued = p.buffer - int(avail)
	}
	limit := drainLimit(queued, p.buffer, p.format.Rate)
	deadline := time.Now().Add(limit)
	if rc := C.snd_pcm_drain(p.h); rc < 0 && rc != -C.EAGAIN {
		return fmt.Errorf("alsa: drain %s %q: %s", p.stream, p.cfg.Device, strerror(rc))
	}
	for C.hark_is_draining(p.h) != 0 {
		if err := ctx.Err(); err != nil {
			C.snd_pcm_drop(p.h)
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			C.snd_pcm_drop(p.h)
			return fmt.Errorf("%w: drain %s %q: not played out after %v (%v was queued); the rest is dropped",
				ErrStalled, p.stream, p.cfg.Device, limit, p.frames(min(max(queued, 0), p.buffer)))
		}
		// A draining PCM may not signal its end through poll: look again
		// every period.
		C.hark_wait(p.h, C.int(p.wake[0]), C.int(max(1, min(p.periodTime(), left).Milliseconds())))
	}
	return nil
}

// Drop stops the device at once, discarding what is queued.
func (p *PCM) Drop() error {
	if rc := C.snd_pcm_drop(p.h); rc < 0 {
		return fmt.Errorf("alsa: drop %q: %s", p.cfg.Device, strerror(rc))
	}
	return nil
}

// Close releases the device, dropping anything still queued.
func (p *PCM) Close() error {
	if p.h == nil {
		return nil
	}
	rc := C.snd_pcm_close(p.h)
	p.h = nil
	syscall.Close(p.wake[0])
	syscall.Close(p.wake[1])
	if rc < 0 {
		return fmt.Errorf("alsa: close %q: %s", p.cfg.Device, strerror(rc))
	}
	return nil
}

func (p *PCM) periodTime() time.Duration { return p.frames(p.period) }

// frames is the time n frames play for.
func (p *PCM) frames(n int) time.Duration {
	return time.Duration(n) * time.Second / time.Duration(p.format.Rate)
}

// wait blocks until the device can transfer or the wake-up pipe is
// written; a device that stays silent for stallTimeout is an error.
func (p *PCM) wait() error {
	rc := C.hark_wait(p.h, C.int(p.wake[0]), C.int(stallTimeout.Milliseconds()))
	switch {
	case rc == -C.ETIMEDOUT:
		return fmt.Errorf("%w: %s %q: nothing for %v", ErrStalled, p.stream, p.cfg.Device, stallTimeout)
	case rc == -C.EPIPE:
		return p.recover(rc)
	case rc < 0:
		return fmt.Errorf("alsa: wait for %s %q: %s", p.stream, p.cfg.Device, strerror(rc))
	}
	return nil
}

// recover brings the device back after an overrun, an underrun or a
// suspend, and counts it; other errors are returned.
func (p *PCM) recover(code C.int) error {
	if code != -C.EPIPE && code != -C.ESTRPIPE && code != -C.EINTR {
		return fmt.Errorf("alsa: %s %q: %s", p.stream, p.cfg.Device, strerror(code))
	}
	if code == -C.EINTR {
		return nil
	}
	n := p.xruns.Add(1)
	what := "underrun: the speaker ran out of audio"
	if p.stream == Capture {
		what = "overrun: captured audio was lost"
	}
	if now := time.Now(); now.Sub(p.xrunLogged) >= xrunEvery {
		p.cfg.Log.Warn(what, "pkg", "alsa", "device", p.cfg.Device, "count", n, "not_logged", p.xrunHeld)
		p.xrunLogged, p.xrunHeld = now, 0
	} else {
		p.xrunHeld++
	}
	if rc := C.snd_pcm_recover(p.h, code, 1); rc < 0 {
		return fmt.Errorf("alsa: recover %s %q: %s", p.stream, p.cfg.Device, strerror(rc))
	}
	if p.stream == Capture {
		C.snd_pcm_start(p.h)
	}
	return nil
}

// CheckConfig parses an ALSA configuration file (a board's asound.conf)
// with alsa-lib and checks that it defines each PCM in pcms.
func CheckConfig(path string, pcms ...string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	for _, name := range pcms {
		ckey := C.CString("pcm." + name)
		rc := C.hark_config_has(cpath, ckey)
		C.free(unsafe.Pointer(ckey))
		switch {
		case rc < 0:
			return fmt.Errorf("alsa: config %s: %s", path, strerror(rc))
		case rc == 0:
			return fmt.Errorf("alsa: config %s defines no PCM %q", path, name)
		}
	}
	return nil
}

func strerror(code C.int) string { return C.GoString(C.snd_strerror(code)) }

func alsaFormat(e pcm.Encoding) C.snd_pcm_format_t {
	switch e {
	case pcm.S32LE:
		return C.SND_PCM_FORMAT_S32_LE
	case pcm.F32LE:
		return C.SND_PCM_FORMAT_FLOAT_LE
	}
	return C.SND_PCM_FORMAT_S16_LE
}

func encoding(f C.snd_pcm_format_t) pcm.Encoding {
	switch f {
	case C.SND_PCM_FORMAT_S32_LE:
		return pcm.S32LE
	case C.SND_PCM_FORMAT_FLOAT_LE:
		return pcm.F32LE
	}
	return pcm.S16LE
}
