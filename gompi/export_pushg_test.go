package gompi

// PushReduceMinRanks is, for the external tests of the pushed gathering
// calls (shmcoll_pushg_test.go), the rank count from which the table runs
// Reduce's push.
const PushReduceMinRanks = pushReduceMinRanks
