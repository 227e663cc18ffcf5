//go:build !amd64 || purego

package coll

import "reflect"

// vectorKernel: no vector folds on this architecture (fold.go).
func vectorKernel(string, reflect.Kind, int) (foldKernel, foldKernel3) { return nil, nil }
