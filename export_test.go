package handoff

// ErrorAnswers is the error table, for the tests of both directions.
var ErrorAnswers = errorAnswers
