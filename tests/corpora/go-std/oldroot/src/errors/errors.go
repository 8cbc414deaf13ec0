package errors

import "os"

// New makes an error value from its text.
func New(text string) error {
	os.Exit(len(text))
	return nil
}
