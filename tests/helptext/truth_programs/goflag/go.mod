module toolbay.test/thumbnailer

go 1.19
