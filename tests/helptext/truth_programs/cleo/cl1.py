import json

from cleo.application import Application
from cleo.commands.command import Command
from cleo.helpers import argument, option


class GreetCommand(Command):
    name = "greet"
    description = "Greets someone"
    arguments = [argument("name", description="Who do you want to greet?", optional=True),
                 argument("extra", description="Extra words", optional=True, multiple=True)]
    options = [option("yell", "y", description="If set, the task will yell in uppercase letters", flag=True),
               option("times", "t", description="How many times", flag=False, default="1"),
               option("tag", None, description="Tags", flag=False, multiple=True),
               option("color", "c", description="Color", flag=False, value_required=False)]

    def handle(self):
        self.line(json.dumps(dict(name=self.argument("name"), extra=self.argument("extra"), yell=self.option("yell"),
                                  times=self.option("times"), tag=self.option("tag"), color=self.option("color"))))


class RemoteAdd(Command):
    name = "remote add"
    description = "Add a remote"
    arguments = [argument("name", description="Remote name"), argument("url", description="Remote URL")]

    def handle(self):
        self.line(json.dumps(dict(cmd="remote add", name=self.argument("name"), url=self.argument("url"))))


app = Application("cl1", "1.0")
app.add(GreetCommand())
app.add(RemoteAdd())
app.run()
