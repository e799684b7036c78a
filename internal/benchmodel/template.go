package benchmodel

import _ "embed"

// Template is the chat template the bench-model target gives the model
// (llama32.gotmpl), in Ollama's template language: Llama 3.2's chat
// format, with headers for the system, user, assistant and tool
// ("ipython") turns. As in Meta's and Ollama's published Llama 3.2
// template, the tools are listed as JSON in the last message when it is
// the user's, and the model calls one by answering with
// {"name": ..., "parameters": ...}. Its use of .Tools is what makes Ollama
// report the "tools" capability. Each tool is rendered with json: Ollama
// 0.17's template values for a tool have no String method, so {{ . }}
// would print a Go struct.
//
//go:embed llama32.gotmpl
var Template string
