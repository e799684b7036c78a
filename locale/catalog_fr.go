package locale

// fr is the catalogue of Hark's fixed sentences in this language, by English key.
var fr = map[string]string{}
