package main

import (
	"fmt"

	"example.org/gowords/words"
)

func summary(text string) string {
	return fmt.Sprintf("%d words", words.Count(text))
}

func main() {
	fmt.Println(summary("one two"))
}
