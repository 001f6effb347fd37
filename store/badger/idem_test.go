package badger
