package gompi

// collConfig holds a communicator's collective-algorithm overrides.
type collConfig struct {
	algs map[string]string // operation → algorithm name
}

func (c collConfig) clone() collConfig {
	if c.algs == nil {
		return c
	}
	m := make(map[string]string, len(c.algs))
	for k, v := range c.algs {
		m[k] = v
	}
	return collConfig{algs: m}
}
