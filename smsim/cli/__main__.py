from smsim.cli import main

main()
