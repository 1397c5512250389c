package text

import (
	"strconv"
	"strings"
	"sync"
)

// The word lists of [Relate], English and Russian (ё folded to е, as
// tokens are). Each word is looked up as written and by its stem, so a
// list names a few forms and the stemmer finds the rest. They are general
// vocabulary for notes about people, projects and infrastructure, not
// fitted to any one set of facts.

// relNegations deny or end a statement ("not", "no longer", "stopped
// using", "больше не", "перестали", "отказались").
const relNegations = `not never none nobody neither nor anymore cannot cant
	doesn don didn isn aren wasn weren won hasn haven hadn shouldn wouldn couldn
	stopped stop quit quitted dropped removed deprecated retired abandoned ditched left
	не нет ни никогда никто перестал перестала перестали перестало отказались отказался отказалась
	убрали убрал удалили удалил бросил бросила бросили прекратили ушел ушла ушли выпилили`

// relParticles are the negations that deny one word; the others (verbs of
// stopping) deny a verb and its object.
const relParticles = `not never none nobody neither nor anymore cannot cant doesn don didn isn aren
	wasn weren won hasn haven hadn shouldn wouldn couldn не нет ни никогда никто`

// relChanges say that something changed, so a different value on the
// other side is a replacement ("moved to", "now", "switched", "теперь").
const relChanges = `now moved migrated switched replaced became become becomes instead changed
	transferred joined renamed handed
	теперь перешел перешла перешли перенесли переехали переехал заменили заменил стал стала стали
	передал передала передали сменили сменил переименовали перевели мигрировали присоединился присоединилась`

// relWeak are generic verbs and adverbs: restatements differ in them ("CI
// runs on X", "CI uses X"), so they neither make two facts the same nor
// set them apart.
const relWeak = `use uses used using run runs running ran go goes going went get gets got getting
	make makes made keep keeps kept put take takes work works working happen happens live lives
	sit sits stay stays lie lies located reside currently actually really usually generally typically
	basically mostly mainly simply entirely fully whole entire lot lots bit quite pretty rather via
	called named known based thing things stuff ours us today still already always written given
	set sets done store stores stored storing hold holds held host hosts hosted hosting
	manage manages managed want wants wanted ask asks asked need needs needed require requires required
	necessary happen happens happened occur occurs remain remains seem seems appear appears provide provides
	offer offers contain contains come comes bring brings help helps try tries able supposed expected
	meant normally regularly primarily moment says said mentioned noted told write writes wrote
	используем используется используются используют использует использовать пользуемся пользуется
	работает работают работаем идут идет живут живет лежат лежит находится находятся стоит стоят
	является являются проходит проходят делаем делается делаются делают сейчас всегда обычно просто
	вообще именно целиком полностью весь вся наш наша наши наше нас нам помощью через качестве
	сидит имеем зовут называется называются храним хранятся хранится хранит хранят держим держат
	хостится хостятся хостим размещен размещена размещены размещаем хочет хотят просит просят
	запускается запускаем запускают запускает стартует нужно нужен нужна нужны требуется требуются
	необходимо необходим будет бывает происходит происходят проводится проводятся проводим пишет пишут
	пишем сказал сказала говорит`

// relStop are function words missing from the search stop list.
const relStop = `someone else каждый каждая каждое каждую каждые больше меньше`

// relSynonyms are groups of words that say the same thing in facts; the
// first word names the group.
var relSynonyms = []string{
	`prefer prefers preferred preference like likes liked love loves enjoy enjoys favor favors favour favours
		fond favorite favourite предпочтение любимый любимая любимое любимые предпочитает предпочитают предпочитаем предпочитаю нравится нравятся любит любят`,
	`owns owned owner owners belongs belong maintain maintains maintained maintainer maintainers responsible charge
		ответственный ответственная владеет владеют владелец принадлежит принадлежат ведет`,
	`send sends sent ship ships shipped shipping forward forwards forwarded deliver delivered
		отправляются отправляется отправляем отправляет шлем шлет уходят уходит приходят приходит пересылаем`,
	`build builds built building compile compiles compiled
		собираем собирается собираются собирают собирает сборка сборки сборку сборок`,
	`deploy deploys deployed deploying deployment deployments rollout
		деплой деплоим деплоится деплоятся выкатываем выкатывается выкатываются выкатка раскатываем`,
	`release releases released
		релиз релизы выходят выходит выпускаем выпускается выпускаются выпуск`,
	`handle handles handled process processes processed
		обрабатывает обрабатывают обрабатываем обрабатывается занимается занимаются занимаемся разбирает разбирают
		разбираем`,
	`fix fixes fixed repair repaired resolve resolves resolved
		чиним чинит починили исправили исправляем исправляет`,
	`create creates created generate generates generated produce produces produced
		создает создают создаем генерирует генерируют`,
	`check checks checked verify verifies verified validate validates validated
		проверяет проверяют проверяем`,
	`update updates updated upgrade upgrades upgraded bump bumps bumped
		обновляем обновляет обновляют обновили обновление обновления`,
	`team teams group squad
		команда команде команду команды командой группа группы отдел`,
	`company companies org organization organisation
		компания компании организация организации`,
	`code codes coding program programs programming develop develops
		программирует программируют кодит разрабатывает разрабатывают`,
	`discuss discusses discussed
		обсуждаем обсуждают обсуждает`,
	`chat chats talk talks communicate communicates speak speaks
		общается общаются общаемся переписываемся`,
	`review reviews reviewed reviewing reviewer
		ревью ревьюит ревьюят ревьюим`,
	`meeting meetings call calls sync syncs
		созвон созвоны созвона встреча встречи митинг`,
	`database databases db dbs
		база базы базу бд данных`,
	`production prod
		прод продакшен продакшене продакшн`,
	`repository repositories repo repos
		репозиторий репозитории репозитория репо`,
	`documentation docs doc
		документация документации доки`,
	`kubernetes k8s kube
		кубер кубере кубернетес кубернетесе`,
	`postgres postgresql pg psql
		постгрес постгресе постгреса постгре`,
	`javascript js
		джаваскрипт`,
	`typescript ts
		тайпскрипт`,
	`python py
		питон питоне питона`,
	`mongodb mongo
		монго`,
	`elasticsearch elastic
		эластик эластике`,
	`github gh
		гитхаб гитхабе гитхаба`,
	`gitlab
		гитлаб гитлабе гитлаба`,
	`slack
		слак слаке слака`,
	`jira
		джира джиру джире джиры`,
	`docker
		докер докере докера`,
	`terraform tf
		терраформ терраформом терраформе`,
	`ansible
		ансибл ансиблом ансибле`,
	`jenkins
		дженкинс дженкинсе дженкинса`,
	`redis
		редис редисе редиса`,
	`kafka
		кафка кафке кафку кафки`,
	`grafana
		графана графане графану`,
	`confluence
		конфлюенс конфлюенсе`,
	`notion
		ноушн ноушене`,
	`environment environments env envs
		окружение окружения окружении`,
	`day days daily
		день дня дней ежедневно ежедневный ежедневная ежедневные ежедневное`,
	`night nights nightly
		ночь ночью ночная ночные ночной ночную`,
	`week weeks weekly
		неделя недели неделю еженедельно еженедельный`,
	`month months monthly
		месяц месяца ежемесячно ежемесячный`,
	`start starts started launch launches launched begin begins
		начинается начинаются`,
	`engineer engineers developer developers dev devs programmer
		разработчик разработчиком разработчица инженер инженером программист`,
	`lead leads leader head heads
		лид тимлид руководит руководитель руководителем возглавляет`,
	`manager managers
		менеджер менеджером`,
}

// relRoles are role and team words: the same person with different ones
// has changed role or team.
const relRoles = `engineer lead manager team teams designer director analyst architect intern sre devops qa
	tester cto ceo vp member
	команда команде команду команды командой дизайнер директор аналитик архитектор стажер
	тестировщик`

// relPoles are antonym pairs, "a|b" with forms of each side separated by
// commas: one fact holding one side and the other fact the other side
// contradict.
var relPoles = []string{
	`open,opened,opens|closed,close,closes,shut`,
	`enabled,enable,enables|disabled,disable,disables`,
	`on|off`,
	`light|dark`,
	`allowed,allow,allows,permitted,permit|forbidden,forbid,forbids,prohibited,banned,disallowed`,
	`sync,synchronous,synchronously|async,asynchronous,asynchronously`,
	`must,required,mandatory,obligatory|may,optional,optionally`,
	`public|private`,
	`internal|external`,
	`manual,manually|automatic,automatically,automated`,
	`small,smaller,little,tiny|large,larger,big,bigger,huge`,
	`short,shorter|long,longer`,
	`fast,faster,quick|slow,slower`,
	`high,higher|low,lower`,
	`include,included,includes|exclude,excluded,excludes`,
	`accept,accepted|reject,rejected`,
	`pass,passes,passed|fail,fails,failed,failing`,
	`visible|hidden,invisible`,
	`active|inactive`,
	`online|offline`,
	`increase,increased|decrease,decreased,reduced`,
	`min,minimum|max,maximum`,
	`ascending|descending`,
	`tabs,tab|spaces`,
	`vertical|horizontal`,
	`remote,remotely|onsite,office`,
	`before|after`,
	`true|false`,
	`weekday,weekdays|weekend,weekends`,
	`morning,mornings|evening,evenings`,
	`cheap,cheaper|expensive`,
	`открыт,открыта,открыто,открыты,открыли,открываем,открытый|закрыт,закрыта,закрыто,закрыты,закрыли,закрываем,закрытый`,
	`включен,включена,включено,включены,включили,включаем|выключен,выключена,выключено,выключены,выключили,отключен,отключена,отключено,отключены,отключили`,
	`светлый,светлая,светлую,светлой,светлые|темный,темная,темную,темной,темные`,
	`разрешен,разрешено,разрешена,разрешены,разрешили|запрещен,запрещено,запрещена,запрещены,запретили,нельзя`,
	`синхронно,синхронный,синхронная,синхронные|асинхронно,асинхронный,асинхронная,асинхронные`,
	`обязательно,обязательный,обязательна,обязательны,должны,должен,должна|необязательно,опционально,опциональный,может,могут,можно`,
	`публичный,публичная,публичное,публичные|приватный,приватная,приватное,приватные`,
	`внутренний,внутренняя,внутренние|внешний,внешняя,внешние`,
	`вручную,ручной,ручная,ручные|автоматически,автоматический,автоматическая,автоматические`,
	`маленький,маленькие,небольшой,небольшие,мелкие|большой,большие,крупный,крупные`,
	`короткий,короткие,короткая|длинный,длинные,длинная`,
	`быстрый,быстро,быстрая|медленный,медленно,медленная`,
	`высокий,высокая|низкий,низкая`,
	`утром|вечером`,
	`табы,табуляция|пробелы`,
	`будни,будням,будний|выходные,выходным`,
}

// relValues are words for numbers and calendar values: two facts with
// different ones say different things.
var relValues = []string{
	`1 one один одна одно одного одну одном`,
	`2 two двух два две`,
	`3 three три трех`,
	`4 four четыре четырех`,
	`5 five пять пяти`,
	`6 six шесть шести`,
	`7 seven семь семи`,
	`8 eight восемь восьми`,
	`9 nine девять девяти`,
	`10 ten десять десяти`,
	`=mon monday mondays понедельник понедельникам понедельник`,
	`=tue tuesday tuesdays вторник вторникам`,
	`=wed wednesday wednesdays`,
	`=thu thursday thursdays четверг четвергам`,
	`=fri friday fridays пятница пятницам пятницу`,
	`=sat saturday saturdays суббота субботам субботу`,
	`=sun sunday sundays воскресенье воскресеньям`,
	`=jan january январь января`,
	`=feb february февраль февраля`,
	`=mar march март марта`,
	`=apr april апрель апреля`,
	`=jun june июнь июня`,
	`=jul july июль июля`,
	`=aug august август августа`,
	`=sep september сентябрь сентября`,
	`=oct october октябрь октября`,
	`=nov november ноябрь ноября`,
	`=dec december декабрь декабря`,
}

// relExpand spells out abbreviations that stand for two words ("PR" is
// "pull request"), so each form matches the other.
var relExpand = map[string][]string{
	"pr": {"pull", "request"}, "prs": {"pull", "requests"}, "mr": {"merge", "request"}, "mrs": {"merge", "requests"},
	"пр": {"pull", "request"}, "пулреквест": {"pull", "request"}, "пул": {"pull"}, "реквест": {"request"},
	"мерджреквест": {"merge", "request"}, "мержреквест": {"merge", "request"},
}

type relLex struct {
	expand                        map[string][]string
	neg, change, weak, stop, role map[string]bool
	particle                      map[string]bool
	syn                           map[string]string
	poles                         map[string]int
	values                        map[string]string
}

// relLexicon is built on first use: most processes never relate facts.
var relLexicon = sync.OnceValue(func() *relLex {
	lx := &relLex{neg: map[string]bool{}, particle: map[string]bool{}, change: map[string]bool{}, weak: map[string]bool{},
		stop: map[string]bool{}, role: map[string]bool{}, syn: map[string]string{},
		poles: map[string]int{}, values: map[string]string{}, expand: map[string][]string{}}
	for w, e := range relExpand {
		lx.expand[w] = e
		if scriptOf(w) == scriptCyrillic {
			lx.expand[Stem(w)] = e
		}
	}
	// Latin words are listed in their forms: an English stem would catch
	// other words ("mainly" stems to "main"). Russian ones also by stem.
	stemOf := func(w string) string {
		if scriptOf(w) == scriptCyrillic {
			return Stem(w)
		}
		return w
	}
	set := func(m map[string]bool, list string) {
		for _, w := range strings.Fields(list) {
			m[w] = true
			m[stemOf(w)] = true
		}
	}
	set(lx.neg, relNegations)
	set(lx.particle, relParticles)
	set(lx.change, relChanges)
	set(lx.weak, relWeak)
	set(lx.stop, relStop)
	set(lx.role, relRoles)
	for _, g := range relSynonyms {
		ws := strings.Fields(g)
		key := "=" + ws[0]
		for _, w := range ws {
			lx.syn[w] = key
			lx.syn[stemOf(w)] = key
		}
		if lx.role[ws[0]] {
			lx.role[key] = true
		}
	}
	for i, p := range relPoles {
		a, b, _ := strings.Cut(p, "|")
		for side, forms := range []string{a, b} {
			for _, w := range strings.Split(forms, ",") {
				lx.poles[w] = 2*i + side
				if _, ok := lx.poles[stemOf(w)]; !ok {
					lx.poles[stemOf(w)] = 2*i + side
				}
			}
		}
	}
	for _, g := range relValues {
		ws := strings.Fields(g)
		for _, w := range ws[1:] {
			lx.values[w] = ws[0]
			if _, err := strconv.Atoi(ws[0]); err != nil {
				lx.values[stemOf(w)] = ws[0] // calendar words by stem too
			}
		}
	}
	return lx
})
