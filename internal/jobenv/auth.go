package jobenv

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Every TCP connection of a job — a rank to the rendezvous store, a rank to
// another rank — starts with a mutual proof that both ends know the job
// secret, before either reads anything else from the other:
//
//	dialer   → listener  magic "GOMPIAU1", role, nonceD (32 bytes)
//	listener → dialer    nonceL (32), HMAC-SHA256(secret, "L" role nonceD nonceL)
//	dialer   → listener  id (4), HMAC-SHA256(secret, "D" role nonceD nonceL id)
//	listener → dialer    1 byte: accepted
//
// Each side checks the other's MAC (in constant time) over both fresh nonces,
// so neither a replayed transcript nor a reflected MAC passes; the role byte
// keeps a store connection from passing as a rank connection; id (the
// dialer's rank, or 0) is bound into the MAC. The listener reads fixed sizes
// only, under a deadline, so a stranger can neither make it allocate nor
// hold it up. A connection that fails is closed; the caller logs it.

// Roles of a connection.
const (
	RoleKV   byte = 'K' // a rank (or agent) to the rendezvous store
	RoleRank byte = 'R' // a rank to another rank
)

var authMagic = [8]byte{'G', 'O', 'M', 'P', 'I', 'A', 'U', '1'}

// ErrAuth means the other end did not prove it knows the job secret.
var ErrAuth = errors.New("the other end did not prove it knows the job secret")

func authMAC(secret []byte, side byte, role byte, nd, nl []byte, id []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte{side, role})
	m.Write(nd)
	m.Write(nl)
	m.Write(id)
	return m.Sum(nil)
}

// ProveDialer runs the dialer's side of the proof on c, claiming id.
func ProveDialer(c net.Conn, secret []byte, role byte, id uint32, timeout time.Duration) error {
	c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	var hello [8 + 1 + 32]byte
	copy(hello[:], authMagic[:])
	hello[8] = role
	nd := hello[9:]
	if _, err := rand.Read(nd); err != nil {
		return err
	}
	if _, err := c.Write(hello[:]); err != nil {
		return err
	}
	var resp [64]byte
	if _, err := io.ReadFull(c, resp[:]); err != nil {
		return fmt.Errorf("%w (no answer to our proof: %v)", ErrAuth, err)
	}
	nl := resp[:32]
	if !hmac.Equal(resp[32:], authMAC(secret, 'L', role, nd, nl, nil)) {
		return ErrAuth
	}
	var fin [4 + 32]byte
	binary.LittleEndian.PutUint32(fin[:4], id)
	copy(fin[4:], authMAC(secret, 'D', role, nd, nl, fin[:4]))
	if _, err := c.Write(fin[:]); err != nil {
		return err
	}
	var ok [1]byte
	if _, err := io.ReadFull(c, ok[:]); err != nil || ok[0] != 1 {
		return fmt.Errorf("%w (the listener refused our proof)", ErrAuth)
	}
	return nil
}

// ProveListener runs the listener's side of the proof on c and returns the
// id the dialer claimed. On error the caller must close c.
func ProveListener(c net.Conn, secret []byte, role byte, timeout time.Duration) (uint32, error) {
	c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	var hello [8 + 1 + 32]byte
	if _, err := io.ReadFull(c, hello[:]); err != nil {
		return 0, fmt.Errorf("%w (short greeting: %v)", ErrAuth, err)
	}
	if [8]byte(hello[:8]) != authMagic {
		return 0, fmt.Errorf("%w (not a gompi connection)", ErrAuth)
	}
	if hello[8] != role {
		return 0, fmt.Errorf("%w (connection of role %q on a %q listener)", ErrAuth, hello[8], role)
	}
	nd := hello[9:]
	var resp [64]byte
	nl := resp[:32]
	if _, err := rand.Read(nl); err != nil {
		return 0, err
	}
	copy(resp[32:], authMAC(secret, 'L', role, nd, nl, nil))
	if _, err := c.Write(resp[:]); err != nil {
		return 0, err
	}
	var fin [4 + 32]byte
	if _, err := io.ReadFull(c, fin[:]); err != nil {
		return 0, fmt.Errorf("%w (no proof: %v)", ErrAuth, err)
	}
	if !hmac.Equal(fin[4:], authMAC(secret, 'D', role, nd, nl, fin[:4])) {
		return 0, fmt.Errorf("%w (wrong proof)", ErrAuth)
	}
	if _, err := c.Write([]byte{1}); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(fin[:4]), nil
}
