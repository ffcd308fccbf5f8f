from paraphrastic.cli.main import main

raise SystemExit(main())
