package gompi

// PushGvTableMaxRanks is, for shmcoll_pushgv_test.go, the most ranks on
// which the table runs Gatherv's push.
const PushGvTableMaxRanks = pushGvTableMaxRanks
