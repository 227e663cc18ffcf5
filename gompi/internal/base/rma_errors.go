package base

import "errors"

// Error classes of one-sided communication (windows).
var (
	ErrWin      = errors.New("invalid window")
	ErrRMARange = errors.New("RMA access outside the target's window")
	ErrRMASync  = errors.New("RMA call outside its synchronization epoch")
	ErrRMAOp    = errors.New("RMA operation not supported for this element type")
)
