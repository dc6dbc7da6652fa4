/**
 * Major cities in the canonical "City,Region,Country" form search engines accept as `location`
 * (e.g. `London,England,United Kingdom`). One per line: `City|Region|CODE`.
 */
export const CITIES = `
New York|New York|US
Buffalo|New York|US
Rochester|New York|US
Albany|New York|US
Los Angeles|California|US
San Francisco|California|US
San Diego|California|US
San Jose|California|US
Sacramento|California|US
Oakland|California|US
Fresno|California|US
Long Beach|California|US
Palo Alto|California|US
Chicago|Illinois|US
Springfield|Illinois|US
Houston|Texas|US
Dallas|Texas|US
Austin|Texas|US
San Antonio|Texas|US
Fort Worth|Texas|US
El Paso|Texas|US
Phoenix|Arizona|US
Tucson|Arizona|US
Scottsdale|Arizona|US
Philadelphia|Pennsylvania|US
Pittsburgh|Pennsylvania|US
Jacksonville|Florida|US
Miami|Florida|US
Orlando|Florida|US
Tampa|Florida|US
Tallahassee|Florida|US
Columbus|Ohio|US
Cleveland|Ohio|US
Cincinnati|Ohio|US
Charlotte|North Carolina|US
Raleigh|North Carolina|US
Indianapolis|Indiana|US
Seattle|Washington|US
Spokane|Washington|US
Denver|Colorado|US
Boulder|Colorado|US
Washington|District of Columbia|US
Boston|Massachusetts|US
Cambridge|Massachusetts|US
Nashville|Tennessee|US
Memphis|Tennessee|US
Detroit|Michigan|US
Grand Rapids|Michigan|US
Portland|Oregon|US
Portland|Maine|US
Las Vegas|Nevada|US
Reno|Nevada|US
Baltimore|Maryland|US
Milwaukee|Wisconsin|US
Madison|Wisconsin|US
Albuquerque|New Mexico|US
Santa Fe|New Mexico|US
Kansas City|Missouri|US
St. Louis|Missouri|US
Atlanta|Georgia|US
Savannah|Georgia|US
Omaha|Nebraska|US
Minneapolis|Minnesota|US
Saint Paul|Minnesota|US
New Orleans|Louisiana|US
Salt Lake City|Utah|US
Honolulu|Hawaii|US
Anchorage|Alaska|US
Louisville|Kentucky|US
Oklahoma City|Oklahoma|US
Tulsa|Oklahoma|US
Richmond|Virginia|US
Virginia Beach|Virginia|US
Birmingham|Alabama|US
Little Rock|Arkansas|US
Boise|Idaho|US
Des Moines|Iowa|US
Wichita|Kansas|US
Newark|New Jersey|US
Jersey City|New Jersey|US
Providence|Rhode Island|US
Hartford|Connecticut|US
Charleston|South Carolina|US
Burlington|Vermont|US
Wilmington|Delaware|US
Cheyenne|Wyoming|US
Billings|Montana|US
Fargo|North Dakota|US
Sioux Falls|South Dakota|US
Manchester|New Hampshire|US
Jackson|Mississippi|US
Charleston|West Virginia|US
Toronto|Ontario|CA
Ottawa|Ontario|CA
Mississauga|Ontario|CA
Hamilton|Ontario|CA
Montreal|Quebec|CA
Quebec City|Quebec|CA
Vancouver|British Columbia|CA
Victoria|British Columbia|CA
Calgary|Alberta|CA
Edmonton|Alberta|CA
Winnipeg|Manitoba|CA
Halifax|Nova Scotia|CA
Saskatoon|Saskatchewan|CA
Regina|Saskatchewan|CA
St. John's|Newfoundland and Labrador|CA
London|England|GB
Manchester|England|GB
Birmingham|England|GB
Liverpool|England|GB
Leeds|England|GB
Sheffield|England|GB
Bristol|England|GB
Newcastle upon Tyne|England|GB
Nottingham|England|GB
Leicester|England|GB
Oxford|England|GB
Cambridge|England|GB
Brighton|England|GB
Southampton|England|GB
York|England|GB
Edinburgh|Scotland|GB
Glasgow|Scotland|GB
Aberdeen|Scotland|GB
Dundee|Scotland|GB
Cardiff|Wales|GB
Swansea|Wales|GB
Belfast|Northern Ireland|GB
Derry|Northern Ireland|GB
Dublin|County Dublin|IE
Cork|County Cork|IE
Galway|County Galway|IE
Sydney|New South Wales|AU
Newcastle|New South Wales|AU
Melbourne|Victoria|AU
Brisbane|Queensland|AU
Gold Coast|Queensland|AU
Perth|Western Australia|AU
Adelaide|South Australia|AU
Hobart|Tasmania|AU
Canberra|Australian Capital Territory|AU
Darwin|Northern Territory|AU
Auckland|Auckland|NZ
Wellington|Wellington|NZ
Christchurch|Canterbury|NZ
Berlin|Berlin|DE
Hamburg|Hamburg|DE
Munich|Bavaria|DE
Nuremberg|Bavaria|DE
Cologne|North Rhine-Westphalia|DE
Dusseldorf|North Rhine-Westphalia|DE
Dortmund|North Rhine-Westphalia|DE
Essen|North Rhine-Westphalia|DE
Frankfurt|Hesse|DE
Stuttgart|Baden-Wurttemberg|DE
Leipzig|Saxony|DE
Dresden|Saxony|DE
Hanover|Lower Saxony|DE
Bremen|Bremen|DE
Paris|Ile-de-France|FR
Marseille|Provence-Alpes-Cote d'Azur|FR
Nice|Provence-Alpes-Cote d'Azur|FR
Lyon|Auvergne-Rhone-Alpes|FR
Toulouse|Occitanie|FR
Montpellier|Occitanie|FR
Bordeaux|Nouvelle-Aquitaine|FR
Lille|Hauts-de-France|FR
Strasbourg|Grand Est|FR
Nantes|Pays de la Loire|FR
Rennes|Brittany|FR
Madrid|Community of Madrid|ES
Barcelona|Catalonia|ES
Valencia|Valencian Community|ES
Seville|Andalusia|ES
Malaga|Andalusia|ES
Bilbao|Basque Country|ES
Zaragoza|Aragon|ES
Palma|Balearic Islands|ES
Rome|Lazio|IT
Milan|Lombardy|IT
Naples|Campania|IT
Turin|Piedmont|IT
Florence|Tuscany|IT
Venice|Veneto|IT
Bologna|Emilia-Romagna|IT
Palermo|Sicily|IT
Genoa|Liguria|IT
Lisbon|Lisbon|PT
Porto|Porto District|PT
Amsterdam|North Holland|NL
Rotterdam|South Holland|NL
The Hague|South Holland|NL
Utrecht|Utrecht|NL
Eindhoven|North Brabant|NL
Brussels|Brussels|BE
Antwerp|Flanders|BE
Ghent|Flanders|BE
Zurich|Zurich|CH
Geneva|Geneva|CH
Basel|Basel-City|CH
Bern|Bern|CH
Vienna|Vienna|AT
Salzburg|Salzburg|AT
Graz|Styria|AT
Copenhagen|Capital Region of Denmark|DK
Aarhus|Central Denmark Region|DK
Stockholm|Stockholm County|SE
Gothenburg|Vastra Gotaland County|SE
Malmo|Skane County|SE
Oslo|Oslo|NO
Bergen|Vestland|NO
Helsinki|Uusimaa|FI
Reykjavik|Capital Region|IS
Warsaw|Masovian Voivodeship|PL
Krakow|Lesser Poland Voivodeship|PL
Wroclaw|Lower Silesian Voivodeship|PL
Gdansk|Pomeranian Voivodeship|PL
Prague|Prague|CZ
Brno|South Moravian Region|CZ
Budapest|Budapest|HU
Bratislava|Bratislava Region|SK
Bucharest|Bucharest|RO
Cluj-Napoca|Cluj County|RO
Sofia|Sofia City Province|BG
Athens|Attica|GR
Thessaloniki|Central Macedonia|GR
Belgrade|Belgrade|RS
Zagreb|City of Zagreb|HR
Ljubljana|Ljubljana|SI
Kyiv|Kyiv city|UA
Lviv|Lviv Oblast|UA
Vilnius|Vilnius County|LT
Riga|Riga|LV
Tallinn|Harju County|EE
Istanbul|Istanbul|TR
Ankara|Ankara|TR
Izmir|Izmir|TR
Moscow|Moscow|RU
Saint Petersburg|Saint Petersburg|RU
Novosibirsk|Novosibirsk Oblast|RU
Tel Aviv-Yafo|Tel Aviv District|IL
Jerusalem|Jerusalem District|IL
Dubai|Dubai|AE
Abu Dhabi|Abu Dhabi|AE
Riyadh|Riyadh Province|SA
Jeddah|Makkah Province|SA
Doha|Doha|QA
Kuwait City|Al Asimah Governate|KW
Manama|Capital Governorate|BH
Muscat|Muscat Governorate|OM
Amman|Amman Governorate|JO
Beirut|Beirut Governorate|LB
Cairo|Cairo Governorate|EG
Alexandria|Alexandria Governorate|EG
Casablanca|Casablanca-Settat|MA
Marrakesh|Marrakesh-Safi|MA
Tunis|Tunis Governorate|TN
Algiers|Algiers Province|DZ
Lagos|Lagos|NG
Abuja|Federal Capital Territory|NG
Accra|Greater Accra Region|GH
Nairobi|Nairobi County|KE
Mombasa|Mombasa County|KE
Addis Ababa|Addis Ababa|ET
Dar es Salaam|Dar es Salaam|TZ
Kampala|Central Region|UG
Kigali|Kigali City|RW
Johannesburg|Gauteng|ZA
Pretoria|Gauteng|ZA
Cape Town|Western Cape|ZA
Durban|KwaZulu-Natal|ZA
Dakar|Dakar Region|SN
Abidjan|Abidjan|CI
Luanda|Luanda Province|AO
Mumbai|Maharashtra|IN
Pune|Maharashtra|IN
Nagpur|Maharashtra|IN
New Delhi|Delhi|IN
Bengaluru|Karnataka|IN
Chennai|Tamil Nadu|IN
Coimbatore|Tamil Nadu|IN
Hyderabad|Telangana|IN
Kolkata|West Bengal|IN
Ahmedabad|Gujarat|IN
Surat|Gujarat|IN
Lucknow|Uttar Pradesh|IN
Noida|Uttar Pradesh|IN
Kochi|Kerala|IN
Jaipur|Rajasthan|IN
Gurugram|Haryana|IN
Karachi|Sindh|PK
Lahore|Punjab|PK
Islamabad|Islamabad Capital Territory|PK
Dhaka|Dhaka Division|BD
Colombo|Western Province|LK
Kathmandu|Bagmati Province|NP
Tokyo|Tokyo|JP
Yokohama|Kanagawa|JP
Osaka|Osaka|JP
Kyoto|Kyoto|JP
Nagoya|Aichi|JP
Sapporo|Hokkaido|JP
Fukuoka|Fukuoka|JP
Kobe|Hyogo|JP
Seoul|Seoul|KR
Busan|Busan|KR
Incheon|Incheon|KR
Beijing|Beijing|CN
Shanghai|Shanghai|CN
Guangzhou|Guangdong|CN
Shenzhen|Guangdong|CN
Chengdu|Sichuan|CN
Hangzhou|Zhejiang|CN
Wuhan|Hubei|CN
Taipei|Taipei City|TW
Kaohsiung|Kaohsiung City|TW
Bangkok|Bangkok|TH
Chiang Mai|Chiang Mai|TH
Phuket|Phuket|TH
Hanoi|Hanoi|VN
Ho Chi Minh City|Ho Chi Minh City|VN
Da Nang|Da Nang|VN
Kuala Lumpur|Federal Territory of Kuala Lumpur|MY
Penang|Penang|MY
Jakarta|Jakarta|ID
Surabaya|East Java|ID
Bandung|West Java|ID
Denpasar|Bali|ID
Manila|Metro Manila|PH
Quezon City|Metro Manila|PH
Cebu City|Central Visayas|PH
Phnom Penh|Phnom Penh|KH
Yangon|Yangon Region|MM
Almaty|Almaty|KZ
Astana|Astana|KZ
Tashkent|Tashkent|UZ
Tbilisi|Tbilisi|GE
Yerevan|Yerevan|AM
Baku|Baku|AZ
Sao Paulo|Sao Paulo|BR
Campinas|Sao Paulo|BR
Rio de Janeiro|Rio de Janeiro|BR
Belo Horizonte|Minas Gerais|BR
Salvador|Bahia|BR
Curitiba|Parana|BR
Porto Alegre|Rio Grande do Sul|BR
Brasilia|Federal District|BR
Recife|Pernambuco|BR
Fortaleza|Ceara|BR
Buenos Aires|Buenos Aires|AR
Cordoba|Cordoba|AR
Rosario|Santa Fe|AR
Mendoza|Mendoza|AR
Santiago|Santiago Metropolitan Region|CL
Valparaiso|Valparaiso|CL
Lima|Lima Region|PE
Bogota|Bogota|CO
Medellin|Antioquia|CO
Cali|Valle del Cauca|CO
Quito|Pichincha|EC
Guayaquil|Guayas|EC
Caracas|Capital District|VE
Montevideo|Montevideo Department|UY
Asuncion|Asuncion|PY
La Paz|La Paz Department|BO
Mexico City|Mexico City|MX
Guadalajara|Jalisco|MX
Monterrey|Nuevo Leon|MX
Puebla|Puebla|MX
Tijuana|Baja California|MX
Cancun|Quintana Roo|MX
Merida|Yucatan|MX
Guatemala City|Guatemala Department|GT
San Jose|San Jose Province|CR
Panama City|Panama Province|PA
San Salvador|San Salvador Department|SV
Tegucigalpa|Francisco Morazan Department|HN
Managua|Managua Department|NI
Havana|Havana|CU
Santo Domingo|National District|DO
San Juan|San Juan|PR
Kingston|Kingston Parish|JM
Port of Spain|Port of Spain|TT
`;
