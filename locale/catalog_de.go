package locale

// de is the catalogue of Hark's fixed sentences in this language, by English key.
var de = map[string]string{}
