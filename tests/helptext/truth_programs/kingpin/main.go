package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/alecthomas/kingpin"
)

var (
	app     = kingpin.New("kp", "A kingpin chat client.")
	verbose = app.Flag("verbose", "Verbose mode.").Short('v').Counter()
	server  = app.Flag("server", "Server address.").Default("127.0.0.1").String()

	register     = app.Command("register", "Register a new user.")
	registerNick = register.Arg("nick", "Nickname for user.").Required().String()
	registerName = register.Arg("name", "Name of user.").Required().String()
	registerAge  = register.Flag("age", "Age in years.").Int()
	registerRole = register.Flag("role", "Role of the user.").Default("user").Enum("user", "admin", "guest")

	post        = app.Command("post", "Post a message to a channel.")
	postImage   = post.Flag("image", "Image to post.").String()
	postTimeout = post.Flag("timeout", "Timeout.").Default("5s").Duration()
	postRetry   = post.Flag("retry", "Retry sending.").Bool()
	postNotify  = post.Flag("notify", "Notify members.").Default("true").Bool()
	postScore   = post.Flag("score", "Score between -1 and 1.").Float64()
	postTo      = post.Flag("to", "Recipient (repeatable).").Required().Strings()
	postChannel = post.Arg("channel", "Channel to post to.").Required().String()
	postText    = post.Arg("text", "Text to post.").Strings()

	run     = app.Command("run", "Run a command.")
	runCmd  = run.Arg("cmd", "Command to run.").Required().String()
	runArgs = run.Arg("args", "Arguments for the command.").Strings()

	db        = app.Command("db", "Database commands.")
	dbMigrate = db.Command("migrate", "Run migrations.")
	dbSteps   = dbMigrate.Flag("steps", "Steps.").Default("1").Int()
)

func main() {
	app.Version("0.9.1")
	cmd := kingpin.MustParse(app.Parse(os.Args[1:]))
	out, _ := json.Marshal(map[string]any{"cmd": cmd, "verbose": *verbose, "server": *server,
		"nick": *registerNick, "name": *registerName, "age": *registerAge, "role": *registerRole,
		"image": *postImage, "timeout": postTimeout.String(), "retry": *postRetry, "notify": *postNotify,
		"score": *postScore, "to": *postTo, "channel": *postChannel, "text": *postText, "steps": *dbSteps,
		"run_cmd": *runCmd, "run_args": *runArgs})
	fmt.Println(string(out))
}
