from toolbay.entry import main

main()
