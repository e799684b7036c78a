package endpoint_test

import (
	"testing"
	"time"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
	"github.com/harkbox/hark/pipeline/pcm"
)

// Endpointing on real speech with the energy detector: endpointtest's
// OnSpeech.
func TestEndpointOnSpeech(t *testing.T) {
	endpointtest.OnSpeech(t, speechClip, nil, 200*time.Millisecond)
}

// speechClip reads a clip of ../shared/testdata/speech for endpointtest.
func speechClip(tb testing.TB, rel string) pcm.Buffer {
	return sharedtest.WAV(tb, "testdata/speech/"+rel)
}
