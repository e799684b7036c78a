package endpoint_test

import (
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/endpoint"
)

// The pipeline's interface this package fills, checked here so that the
// package itself needs only pipeline/voice.
var _ pipeline.Microphone = (*endpoint.Listener)(nil)
