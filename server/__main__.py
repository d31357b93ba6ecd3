from toolbay.cli import main

main()
