//go:build whisper && cgo

package whisper

import "context"

// ProbeChild is the probe's side in the child process: it loads model and
// transcribes a second of silence with it, as the daemon will. An abort or
// a hang here kills or stalls only the child; the parent's
// ProbeCommand.Timeout bounds it all (an emulated board takes minutes).
func ProbeChild(ctx context.Context, model string) error {
	e, err := New(Options{Model: model, Threads: 1, Language: "en"})
	if err != nil {
		return err
	}
	defer e.Close()
	_, err = e.Run(ctx, make([]float32, 16000))
	return err
}
