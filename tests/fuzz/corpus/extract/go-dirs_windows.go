//go:build windows

package main

import (
	"os"
	"path/filepath"
)

func dataDir() string {
	return filepath.Join(os.Getenv("APPDATA"), "shop")
}
