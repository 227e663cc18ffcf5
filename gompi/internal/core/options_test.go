package core

import (
	"testing"

	"github.com/gompi/gompi/internal/jobenv"
)

// TestLedBarriersOption: the barrier leave orders are off unless
// GOMPI_SHM_LEAD turns them on, and a value that is not a boolean is
// refused with the variable's name.
func TestLedBarriersOption(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want bool
		bad  bool
	}{{"", false, false}, {"1", true, false}, {"true", true, false}, {"0", false, false}, {"yes", false, true}} {
		t.Setenv(jobenv.LedBarriers, tc.val)
		o, err := optionsFromEnv()
		if tc.bad {
			if err == nil {
				t.Errorf("%s=%q: no error", jobenv.LedBarriers, tc.val)
			}
			continue
		}
		if err != nil || o.LedBarriers != tc.want {
			t.Errorf("%s=%q: LedBarriers %v, err %v; want %v", jobenv.LedBarriers, tc.val, o.LedBarriers, err, tc.want)
		}
	}
}
