package locale

// FollowUp are the words of a short "and …" follow-up in a language, which
// changes one part of the last call: "and in Paris?" after a weather
// question, "und mal drei" after a sum.
type FollowUp struct {
	// And are the words that open one: "and", "und".
	And []string
	// Place are the prepositions said before a place: "in", "à".
	Place []string
	// Operations are the operations said before a number, longest
	// first where one begins another ("dividido entre" before "entre").
	Operations []Operation
}

// Operation is an operation as said ("times") and as the calculator names
// it ("multiply").
type Operation struct{ Said, Operation string }

// FollowUp is l's words of a short "and …" follow-up; none for a language
// without offline phrases.
func (l Lang) FollowUp() FollowUp { return followUps[l] }

var followUps = map[Lang]FollowUp{
	English: {And: []string{"and"}, Place: []string{"in"}, Operations: []Operation{
		{"plus", "add"}, {"minus", "subtract"}, {"times", "multiply"}, {"multiplied by", "multiply"}, {"divided by", "divide"}}},
	German: {And: []string{"und"}, Place: []string{"in"}, Operations: []Operation{
		{"plus", "add"}, {"minus", "subtract"}, {"mal", "multiply"}, {"geteilt durch", "divide"}, {"durch", "divide"}}},
	Spanish: {And: []string{"y", "e"}, Place: []string{"en"}, Operations: []Operation{
		{"más", "add"}, {"mas", "add"}, {"menos", "subtract"}, {"por", "multiply"}, {"dividido entre", "divide"}, {"dividido por", "divide"}, {"entre", "divide"}}},
	French: {And: []string{"et"}, Place: []string{"à", "a", "en", "au", "aux"}, Operations: []Operation{
		{"plus", "add"}, {"moins", "subtract"}, {"fois", "multiply"}, {"multiplié par", "multiply"}, {"divisé par", "divide"}}},
}
